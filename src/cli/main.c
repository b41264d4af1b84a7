/*
 * main.c — the memlens program: the command line of dispatch.c, on stdout
 * and stderr, with the program's answer to a fatal error (print, exit 3).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "err.h"

static void fatal_exit(const char *msg)
{
    fprintf(stderr, "memlens: %s\n", msg);
    exit(3);
}

int main(int argc, char **argv)
{
    ml_set_fatal_handler(fatal_exit);
    return ml_cli_main(argc, argv);
}
