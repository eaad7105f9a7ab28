/*
 * retro_shares.h - a distributed run's reads of the table over the ranks
 * (retro_shares.c; MPI builds only). Every function is a collective call
 * but retro_shares_counts and retro_shares_of.
 */
#ifndef TSUME_RETRO_SHARES_H
#define TSUME_RETRO_SHARES_H

#include "retro_internal.h"

typedef struct ShareState ShareState;

/* A layer's reads: r reads its own table, and every other rank's one-sided, until retro_shares_drop. */
int retro_shares_layer(Retro *r, ShareState **out, TsError *err);
/* The reads closed and their state freed: r reads its own table alone again. */
void retro_shares_drop(Retro *r, ShareState *s);
/* The classification's table: each rank's share moved into memory its machine's ranks share (remote_all:
 * each rank a machine of its own), read through r->shares until retro_free releases it. */
int retro_shares_table(Retro *r, bool remote_all, TsError *err);
/* This rank's reads of other ranks' shares: look-ups, those a thread's cache answered, one-sided reads,
 * round trips (zeros for NULL). */
void retro_shares_counts(const ShareState *s, uint64_t out[4]);
/* The classification's shares of r, or NULL. */
const ShareState *retro_shares_of(const Retro *r);

/* retro_mpi.c: whether rc failed on any rank (a collective call), and the threads' level MPI granted. */
bool retro_mpi_failed(int rc);
int retro_mpi_thread_level(void);

#endif
