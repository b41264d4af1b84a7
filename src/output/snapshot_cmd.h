/*
 * snapshot_cmd.h — `memlens snapshot segments|trace`: the allocator state and
 * the allocator's action log of a CUDA allocator snapshot, as text.
 */
#ifndef ML_SNAPSHOT_CMD_H
#define ML_SNAPSHOT_CMD_H

/* argv[0] is "segments" or "trace" (after "snapshot"). Returns the exit status. */
int ml_cmd_snapshot(int argc, char **argv);

#endif
