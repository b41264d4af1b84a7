build-dev/gen/web_assets.o: build-dev/gen/web_assets.c
