/*
 * main.c — the memlens program: the command line of dispatch.c.
 */
#include "cli.h"

int main(int argc, char **argv) { return ml_cli_main(argc, argv); }
