/*
 * serve_cmd.h — `memlens serve INPUT...|DIR`: the report's UI served live
 * from memory by a local HTTP server (src/server/).
 */
#ifndef ML_SERVE_CMD_H
#define ML_SERVE_CMD_H

/* Runs until SIGINT/SIGTERM; returns the exit status. */
int ml_cmd_serve(int argc, char **argv);

#endif
