// SPDX-License-Identifier: GPL-2.0
/*
 * Opens a trace.dat with KernelShark's own library (libkshark, Debian's kernelshark
 * package) and its sched_events plugin, as the GUI does, and prints what the GUI would
 * show, one "key value" line each:
 *   entries	entries loaded
 *   unnamed	entries whose event has no name (an event ID libkshark cannot map)
 *   <name>	entries of each sched/irq event, by the name libkshark gives them
 *   negative_ids	entries whose event ID came out negative (kept in 16 signed bits)
 *   no_info	named entries without field text (kshark_get_info)
 *   no_latency	named entries without latency flags (kshark_get_aux_info)
 *   switches	sched_switch entries whose prev_pid and next_pid fields read back
 *   tasks	tasks libkshark found
 *   plugin_init	1 when the sched plugin found its events and fields in the file
 *
 *   kshark_check FILE.dat [SCHED_PLUGIN.so]
 * Exit: 0 when the file was read, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libkshark.h"
#include "libkshark-plugin.h"

#define DEF_PLUGIN "/usr/lib/x86_64-linux-gnu/kernelshark/plugins/plugin-sched_events.so"

static const char *const counted[] = {
	"sched/sched_switch", "sched/sched_wakeup", "sched/sched_process_fork",
	"irq/irq_handler_entry", "irq/softirq_entry", "ftring/marker",
};

int main(int argc, char **argv)
{
	const char *plugin = argc > 2 ? argv[2] : DEF_PLUGIN;
	long count[sizeof(counted) / sizeof(counted[0])] = { 0 };
	long unnamed = 0, switches = 0, negative = 0, no_info = 0, no_lat = 0;
	struct kshark_context *ctx = NULL;
	struct kshark_entry **data = NULL;
	struct kshark_data_stream *stream;
	struct kshark_plugin_list *pl;
	int *pids = NULL;
	ssize_t n, ntasks;
	int sd;

	if (argc < 2) {
		fprintf(stderr, "usage: kshark_check FILE.dat [SCHED_PLUGIN.so]\n");
		return 1;
	}
	if (!kshark_instance(&ctx))
		return 1;
	sd = kshark_open(ctx, argv[1]);
	if (sd < 0) {
		fprintf(stderr, "kshark_check: libkshark cannot open %s\n", argv[1]);
		return 1;
	}
	stream = kshark_get_data_stream(ctx, sd);
	/* the plugin, registered and initialised for the stream as the GUI does */
	pl = kshark_register_plugin(ctx, "sched_events", plugin);
	if (!stream || !pl || !pl->process_interface ||
	    !kshark_register_plugin_to_stream(stream, pl->process_interface, true)) {
		fprintf(stderr, "kshark_check: cannot load %s\n", plugin);
		return 1;
	}
	printf("plugin_init %d\n", kshark_handle_all_dpis(stream, KSHARK_PLUGIN_INIT));
	n = kshark_load_entries(ctx, sd, &data);
	for (ssize_t i = 0; i < n; i++) {
		char *name = kshark_get_event_name(data[i]), *info, *lat;
		int64_t next, prev = 0;

		if (data[i]->event_id < 0)
			negative++;
		if (!name || !strcmp(name, "unknown")) {
			unnamed++;
			free(name);
			continue;
		}
		info = kshark_get_info(data[i]);
		lat = kshark_get_aux_info(data[i]);
		no_info += !info || !*info;
		no_lat += !lat || !*lat;
		free(info);
		free(lat);
		for (size_t k = 0; k < sizeof(counted) / sizeof(counted[0]); k++)
			if (!strcmp(name, counted[k]))
				count[k]++;
		if (!strcmp(name, "sched/sched_switch") &&
		    !kshark_read_event_field_int(data[i], "next_pid", &next) &&
		    !kshark_read_event_field_int(data[i], "prev_pid", &prev) && next != prev)
			switches++;
		free(name);
	}
	ntasks = kshark_get_task_pids(ctx, sd, &pids);
	printf("entries %zd\nunnamed %ld\nnegative_ids %ld\nno_info %ld\nno_latency %ld\n",
	       n, unnamed, negative, no_info, no_lat);
	for (size_t k = 0; k < sizeof(counted) / sizeof(counted[0]); k++)
		printf("%s %ld\n", counted[k], count[k]);
	printf("switches %ld\ntasks %zd\n", switches, ntasks);
	free(pids);
	for (ssize_t i = 0; i < n; i++)
		free(data[i]);
	free(data);
	kshark_free(ctx);
	return n < 0;
}
