/*
 * web_assets.h — the web UI, embedded at build time (tools/embed/embed.c
 * writes build/gen/web_assets.c from web/src and web/node_modules/uplot).
 */
#ifndef ML_WEB_ASSETS_H
#define ML_WEB_ASSETS_H

#include <stddef.h>

extern const char ml_asset_uplot_js[], ml_asset_uplot_css[];   /* uPlot (npm), as shipped */
extern const char ml_asset_style[];   /* web/src/style.css */
extern const char ml_asset_body[];    /* web/src/body.html: the page's markup */
extern const char ml_asset_app[];     /* the web/src modules, joined into one */
extern const size_t ml_asset_uplot_js_len, ml_asset_uplot_css_len, ml_asset_style_len,
    ml_asset_body_len, ml_asset_app_len;

#endif
