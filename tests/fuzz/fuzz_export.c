// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the event mapping of `recorderd export --fxt` (export/fxt_map.c)
 * on any records. libtracecmd, which hands the records over in the real command, is
 * left out on purpose: its crashes are contained by export's sandbox and are not ours
 * to find here; what is ours is every field read from a record and every state the
 * records drive (switches, slices, tasks, lost events, carried FXT records).
 *
 * The event formats are those of tests/lib/evformats.c (sched, irq, syscalls, task,
 * the module's marker and fxt). The input is a sequence of records:
 *   u8 cpu, u8 flags (bit 0: events were lost before it; bit 1: how many is
 *   unknown; bits 2-7: how many), u8 event, u8 size,
 *   u16 time delta, then size bytes of record (its common_type is set from "event")
 * Each record is a buffer of exactly its size, so that ASan sees any read past it.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/fxt_export.h"
#include "export/fxt_export_local.h"
#include "format/fxt_writer.h"
#include "format/meta.h"
#include "util/log.h"
#include "../lib/evformats.h"

#define NCPUS	4

static struct tep_handle *tep;
static int ids[64], nr_ids;
static int devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct trace_meta m = { 0 };

	log_max_level = LOG_LVL_ERR;
	tep = tep_alloc();
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (!tep || devnull < 0 || evf_add_all(&m))
		abort();
	tep_set_cpus(tep, NCPUS);
	for (int s = 0; s < m.nr_systems; s++)
		for (int e = 0; e < m.systems[s].nr_events; e++) {
			const struct meta_format *f = &m.systems[s].events[e];

			if (tep_parse_event(tep, f->text, f->len, m.systems[s].name))
				abort();
		}
	for (int i = 0; i < tep_get_events_count(tep) && nr_ids < 64; i++)
		ids[nr_ids++] = tep_get_event(tep, i)->id;
	meta_free(&m);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fxt_export_opts opts = { 0 };
	struct fxt_export_stats st = { 0 };
	struct exporter x = { .tep = tep, .opts = &opts, .st = &st, .ncpus = NCPUS };
	unsigned long long ts = 1000;
	size_t at = 0;

	if (exp_map_init(&x))
		abort();
	x.w = fxtw_new(devnull);
	if (!x.w)
		abort();
	exp_load_state_flags(&x, tep_find_event_by_name(tep, "sched", "sched_switch"));
	while (at + 6 <= size && !x.failed) {
		struct tep_record r = { 0 };
		uint8_t cpu = data[at], flags = data[at + 1], ev = data[at + 2];
		size_t len = data[at + 3];
		uint16_t type = (uint16_t)ids[ev % nr_ids];
		uint8_t *rec;

		ts += data[at + 4] | (unsigned int)data[at + 5] << 8;
		at += 6;
		if (len > size - at)
			len = size - at;
		rec = malloc(len ? len : 1);
		if (!rec)
			abort();
		memcpy(rec, data + at, len);
		if (len >= 2)
			memcpy(rec, &type, 2);
		at += len;
		r.ts = ts;
		r.cpu = cpu % (NCPUS + 1);	/* one out of range */
		r.data = rec;
		r.size = (int)len;
		r.record_size = (int)len + 4;
		/* -1: a loss of unknown size, as libtracecmd says it */
		r.missed_events = !(flags & 1) ? 0 : (flags & 2) ? -1 : flags >> 2;
		exp_on_record(NULL, &r, r.cpu, &x);
		free(rec);
	}
	if (!x.failed && !fxtw_error(x.w))
		exp_close_all(&x);
	fxtw_finish(x.w);
	exp_free(&x);
	return 0;
}
