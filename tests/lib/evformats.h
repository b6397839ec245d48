/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test helper: event formats of the events the exporter maps (Linux 6.18 layouts,
 * the module's own), for files made by tests and for the export fuzz target.
 */
#ifndef TEST_EVFORMATS_H
#define TEST_EVFORMATS_H

#define EVF_ID_SWITCH		300
#define EVF_ID_IRQ_ENTRY	301
#define EVF_ID_IRQ_EXIT		302
#define EVF_ID_SYS_ENTER	303
#define EVF_ID_SYS_EXIT		304
#define EVF_ID_WAKEUP		305
#define EVF_ID_FORK		306
#define EVF_ID_SOFTIRQ_ENTRY	307
#define EVF_ID_SOFTIRQ_EXIT	308
#define EVF_ID_OPENAT_ENTER	312
#define EVF_ID_OPENAT_EXIT	313
#define EVF_ID_NEWTASK		314
#define EVF_ID_RENAME		315
#define EVF_ID_MARKER		310
#define EVF_ID_FXT		311

/* One system: its formats concatenated, as meta_add_system_text() takes them. */
struct evf_system {
	const char	*name;
	const char	*text;
};

extern const struct evf_system evf_systems[];
extern const int evf_nr_systems;

struct trace_meta;

/* Adds every system above to @m. 0 or -errno. */
int evf_add_all(struct trace_meta *m);

#endif /* TEST_EVFORMATS_H */
