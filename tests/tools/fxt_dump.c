// SPDX-License-Identifier: GPL-2.0
/*
 * tests/tools/fxt_dump.c - check an FXT file with the strict decoder; print a summary
 * (default) or every record (-v). Used by tests/system/030-export-fxt.sh and by hand.
 *
 *   fxt_dump [-o] [-v] FILE     -o: also hold it to the exporter's promises (FXT_DEC_OURS)
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fxt.h"
#include "fxt_decode.h"

/* What the exporter mapped, by kind (for tests/system/030-export-fxt.sh). */
struct kinds {
	uint64_t	switches, repaired, wakeups, prints, irqs, softirqs, syscalls, lost;
};

static void count(const struct fxt_dec_rec *r, struct kinds *k)
{
	if (r->type == FXT_REC_SCHED && r->subtype == FXT_SCHED_SWITCH) {
		if (fxt_dec_arg(r, "synthetic"))
			k->repaired++;
		else
			k->switches++;
	} else if (r->type == FXT_REC_SCHED && r->subtype == FXT_SCHED_WAKEUP) {
		k->wakeups++;
	} else if (r->type == FXT_REC_EVENT && r->subtype == FXT_EV_DURATION_BEGIN) {
		k->irqs += !strcmp(r->category, "irq");
		k->softirqs += !strcmp(r->category, "softirq");
		k->syscalls += !strcmp(r->category, "syscall");
	} else if (r->type == FXT_REC_EVENT && r->subtype == FXT_EV_INSTANT) {
		k->prints += !strcmp(r->category, "ftrace") && !strcmp(r->name, "print");
		k->lost += !strcmp(r->name, "lost events");
	}
}

static int quiet_rec(const struct fxt_dec_rec *r, void *ctx)
{
	count(r, ctx);
	return 0;
}

static int print_rec(const struct fxt_dec_rec *r, void *ctx)
{
	count(r, ctx);
	printf("%8zu type %u sub %u", r->offset, r->type, r->subtype);
	if (r->type == FXT_REC_EVENT)
		printf(" ts %" PRIu64 " pid %" PRIu64 " tid %" PRIu64 " %s/%s", r->ts, r->pid,
		       r->tid, r->category, r->name);
	else if (r->type == FXT_REC_SCHED)
		printf(" ts %" PRIu64 " cpu %u state %u out %" PRIu64 " in %" PRIu64
		       " tid %" PRIu64, r->ts, r->cpu, r->state, r->out_tid, r->in_tid, r->tid);
	else if (r->type == FXT_REC_KERNEL_OBJ || r->type == FXT_REC_STRING)
		printf(" koid/index %" PRIu64 " '%s'", r->koid, r->name);
	for (unsigned int i = 0; i < r->nargs; i++) {
		const struct fxt_dec_arg *a = &r->args[i];

		if (a->type == FXT_ARG_STRING)
			printf(" %s='%s'", a->name, a->str);
		else
			printf(" %s=%" PRId64, a->name, (int64_t)a->u);
	}
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct fxt_dec_summary s;
	struct kinds k = { 0 };
	unsigned int flags = 0;
	int verbose = 0, c, ret;
	char err[256];

	while ((c = getopt(argc, argv, "ov")) != -1) {
		if (c == 'o')
			flags |= FXT_DEC_OURS;
		else if (c == 'v')
			verbose = 1;
		else
			return 2;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: fxt_dump [-o] [-v] FILE\n");
		return 2;
	}
	ret = fxt_decode_file(argv[optind], flags, verbose ? print_rec : quiet_rec, &k, &s,
			      err, sizeof(err));
	if (ret) {
		fprintf(stderr, "fxt_dump: %s: %s\n", argv[optind], err[0] ? err : strerror(-ret));
		return 1;
	}
	printf("records %" PRIu64 " strings %" PRIu64 " threads %" PRIu64 " events %" PRIu64
	       " sched %" PRIu64 " kobj %" PRIu64 "\n", s.records, s.by_type[FXT_REC_STRING],
	       s.by_type[FXT_REC_THREAD], s.by_type[FXT_REC_EVENT], s.by_type[FXT_REC_SCHED],
	       s.by_type[FXT_REC_KERNEL_OBJ]);
	printf("instant %" PRIu64 " begin %" PRIu64 " end %" PRIu64 " complete %" PRIu64
	       " switch %" PRIu64 " wakeup %" PRIu64 " process %" PRIu64 " thread %" PRIu64
	       " ticks %" PRIu64 "\n", s.events[FXT_EV_INSTANT], s.events[FXT_EV_DURATION_BEGIN],
	       s.events[FXT_EV_DURATION_END], s.events[FXT_EV_DURATION_COMPLETE],
	       s.sched[FXT_SCHED_SWITCH], s.sched[FXT_SCHED_WAKEUP], s.kobj_process,
	       s.kobj_thread, s.ticks_per_second);
	printf("mapped switch %" PRIu64 " repaired %" PRIu64 " wakeup %" PRIu64 " print %" PRIu64
	       " irq %" PRIu64 " softirq %" PRIu64 " syscall %" PRIu64 " lost %" PRIu64 "\n",
	       k.switches, k.repaired, k.wakeups, k.prints, k.irqs, k.softirqs, k.syscalls,
	       k.lost);
	return 0;
}
