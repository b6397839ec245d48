// SPDX-License-Identifier: GPL-2.0
/*
 * A qemu TCG plugin that counts the guest instructions executed per translation
 * block, for tests/bench/insn_profile: where a tracer's cost per event goes, in the
 * same units as the -icount benchmarks (1 unit = 1 emulated instruction), by the
 * guest's symbols. Not a test; never part of a timed figure.
 *
 *   qemu-system-x86_64 ... -plugin insn_profile.so,out=FILE
 *
 * At exit, FILE has one line per block that ran: "VADDR INSNS COUNT" (vaddr in 16
 * hex digits, instructions in the block, times it ran). A block is counted whole: one
 * that an interrupt or fault cuts short counts all its instructions (rare next to
 * the millions of runs the profile sums).
 *
 * Windows: when the guest runs the start and stop marks (tests/bench/vm_pingpong.c
 * profile_start/stop: a long NOP whose displacement names it), COUNT is what ran
 * between them, summed over every window, and the file's first line is
 * "# windows N". So boot, setup and the tracer's start and stop stay out.
 *
 * qemu 7.2 (Debian 12) runs plugins but ships no qemu-plugin.h: the calls used are
 * declared in qemu_plugin_v1.h.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_plugin_v1.h"

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/*
 * One record per translation. Records live in blocks that never move: the
 * translated code adds to @count in place, for as long as the block is cached.
 */
struct tb_rec {
	uint64_t vaddr;
	uint64_t count;
	uint64_t at_start;	/* @count when the open window started */
	uint64_t in_windows;	/* runs inside the windows closed so far */
	uint32_t insns;
};

#define RECS_PER_BLOCK	65536

struct rec_block {
	struct rec_block *next;
	unsigned int used;
	struct tb_rec recs[RECS_PER_BLOCK];
};

static struct rec_block *blocks;
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static char *out_path;
static unsigned long windows;
static int window_open;

/* the marks: 0f 1f 80 disp32, "nopl disp32(%rax)", with these displacements */
#define MARK_LEN	7
#define MARK_START	0x31666f72u	/* "rof1" */
#define MARK_STOP	0x30666f72u	/* "rof0" */

static struct tb_rec *rec_new(void)
{
	struct rec_block *b = blocks;

	if (!b || b->used == RECS_PER_BLOCK) {
		b = calloc(1, sizeof(*b));
		if (!b)
			return NULL;
		b->next = blocks;
		blocks = b;
	}
	return &b->recs[b->used++];
}

/* A mark runs: open or close the window (vCPUs are one thread: no race). */
static void on_mark(unsigned int vcpu, void *start)
{
	struct rec_block *b;
	unsigned int i;

	pthread_mutex_lock(&blocks_lock);
	if (start && !window_open) {
		for (b = blocks; b; b = b->next)
			for (i = 0; i < b->used; i++)
				b->recs[i].at_start = b->recs[i].count;
		window_open = 1;
	} else if (!start && window_open) {
		for (b = blocks; b; b = b->next)
			for (i = 0; i < b->used; i++)
				b->recs[i].in_windows += b->recs[i].count - b->recs[i].at_start;
		window_open = 0;
		windows++;
	}
	pthread_mutex_unlock(&blocks_lock);
}

/* Asks for on_mark before each mark instruction of @tb. */
static void find_marks(struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct qemu_plugin_insn *insn;
	const unsigned char *p;
	uint32_t disp;

	for (i = 0; i < n; i++) {
		insn = qemu_plugin_tb_get_insn(tb, i);
		if (qemu_plugin_insn_size(insn) != MARK_LEN)
			continue;
		p = qemu_plugin_insn_data(insn);
		if (p[0] != 0x0f || p[1] != 0x1f || p[2] != 0x80)
			continue;
		memcpy(&disp, p + 3, sizeof(disp));	/* x86: little-endian */
		if (disp == MARK_START || disp == MARK_STOP)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
							       QEMU_PLUGIN_CB_NO_REGS,
							       disp == MARK_START ? "" : NULL);
	}
}

static void on_tb_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct tb_rec *r;

	pthread_mutex_lock(&blocks_lock);
	r = rec_new();
	if (r) {
		r->vaddr = qemu_plugin_tb_vaddr(tb);
		r->insns = (uint32_t)qemu_plugin_tb_n_insns(tb);
	}
	pthread_mutex_unlock(&blocks_lock);
	/* without a record the block goes uncounted: the report's total shows it */
	if (r)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							 &r->count, 1);
	find_marks(tb);
}

static void on_qemu_exit(qemu_plugin_id_t id, void *userdata)
{
	struct rec_block *b;
	unsigned int i;
	FILE *f = fopen(out_path, "w");

	uint64_t c;

	if (!f) {
		perror(out_path);
		return;
	}
	if (windows)
		fprintf(f, "# windows %lu\n", windows);
	for (b = blocks; b; b = b->next)
		for (i = 0; i < b->used; i++) {
			c = windows ? b->recs[i].in_windows : b->recs[i].count;
			if (c)
				fprintf(f, "%016" PRIx64 " %u %" PRIu64 "\n", b->recs[i].vaddr,
					b->recs[i].insns, c);
		}
	if (fclose(f))
		perror(out_path);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info_t *info,
			int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
	if (!out_path) {
		fprintf(stderr, "insn_profile: usage: -plugin insn_profile.so,out=FILE\n");
		return 1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
