/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recorderd control protocol: one request, one response, over a SOCK_SEQPACKET Unix
 * socket (one message each way, so framing is the kernel's). Shared by the daemon
 * (recorder/daemon/ctl_server.c) and the CLI (recorder/daemon/ctl_client.c).
 *
 * Every message starts with a 24-byte header in host byte order (the socket is local).
 * The server checks, in this order, before it dispatches anything: the message length
 * against the header size, the magic, that the reserved bytes are zero, the version,
 * that the command is known, and the payload length against the command's range. Each
 * failure is answered with its own status code, never silence.
 *
 * Rules for changing this file:
 *   - command and status codes are append-only: never renumber or reuse one; a command
 *     whose payload must change gets a new code (CTL_CMD_SNAPSHOT2), the old one stays;
 *   - reserved bytes must be zero on send and are checked on receive, so they can later
 *     carry meaning without a version bump for old peers to misread;
 *   - bump CTL_PROTO_VERSION for any change an old peer would misread, and add a line
 *     to the history below.
 *
 * Version history:
 *   1  first version: PING, STATUS, STOP, SNAPSHOT, RELOAD, ROTATE.
 *      Later, with no change an old peer misreads: TRIGGER (an old daemon answers
 *      BAD_COMMAND), a 7th STATUS string (old clients read six), and STATUS pages
 *      (struct ctl_status_req: an old daemon answers BAD_PAYLOAD and the client asks
 *      again without; cpus_total and first_cpu were reserved words; an old client
 *      reads the first page, whose @ncpus counts that page); the spool counters
 *      (CTL_STATUS_F_SPOOL: spooled and spool_peak were the reserved words); the
 *      count of chunks stored uncompressed (CTL_STATUS_F_STORED: @stored was
 *      reserved1).
 */
#ifndef COMMON_CTL_PROTO_H
#define COMMON_CTL_PROTO_H

#include <linux/types.h>

#define CTL_PROTO_VERSION	1
#define CTL_MAGIC		0x4c544352	/* "RCTL" little-endian */
#define CTL_MAX_MSG		65536		/* largest request or response, header included */
#define CTL_MAX_PAYLOAD		(CTL_MAX_MSG - (int)sizeof(struct ctl_hdr))

/* Default socket path; tests override it with --socket or $RECORDERD_SOCKET. */
#define CTL_SOCKET_PATH		"/run/recorderd/ctl.sock"

/**
 * struct ctl_hdr - header of every request and response
 * @magic:	CTL_MAGIC
 * @version:	CTL_PROTO_VERSION of the sender
 * @code:	request: enum ctl_cmd; response: enum ctl_status
 * @payload_len: bytes that follow the header
 * @seq:	request: chosen by the client; response: copied from the request
 * @reserved:	zero
 */
struct ctl_hdr {
	__u32	magic;
	__u16	version;
	__u16	code;
	__u32	payload_len;
	__u32	seq;
	__u32	reserved[2];
};

/* Request codes. Append only. */
enum ctl_cmd {
	CTL_CMD_PING		= 1,	/* no payload; answer: struct ctl_ping */
	CTL_CMD_STATUS		= 2,	/* no payload; answer: struct ctl_status_reply + ... */
	CTL_CMD_STOP		= 3,	/* no payload; answered once the files are final */
	CTL_CMD_SNAPSHOT	= 4,	/* payload: output path (may be empty), no NUL */
	CTL_CMD_RELOAD		= 5,	/* no payload; re-reads the config file */
	CTL_CMD_ROTATE		= 6,	/* no payload; closes the file, opens the next */
	CTL_CMD_TRIGGER		= 7,	/* payload: NAME of a command:NAME trigger, no NUL;
					 * answer: a message text */
	CTL_CMD_MAX			/* first unused code */
};

/* Response status codes. Append only. The payload of an error is a message text. */
enum ctl_status {
	CTL_ST_OK		= 0,
	CTL_ST_BAD_LENGTH	= 1,	/* message shorter than the header, or lengths disagree */
	CTL_ST_BAD_MAGIC	= 2,
	CTL_ST_BAD_VERSION	= 3,	/* payload: struct ctl_ping with the server's version */
	CTL_ST_BAD_COMMAND	= 4,
	CTL_ST_BAD_PAYLOAD	= 5,	/* payload length or content wrong for the command */
	CTL_ST_BAD_RESERVED	= 6,
	CTL_ST_DENIED		= 7,	/* peer may only use read-only commands */
	CTL_ST_FAILED		= 8,	/* the command ran and failed; payload says why */
	CTL_ST_NOT_SUPPORTED	= 9,	/* e.g. snapshot in stream mode */
	CTL_ST_BUSY		= 10,	/* e.g. stopping already */
	CTL_ST_MAX
};

/* Answer to PING (and payload of BAD_VERSION). */
struct ctl_ping {
	__u32	version;	/* server's CTL_PROTO_VERSION */
	__u32	pid;
	__u64	reserved;
};

enum ctl_state {
	CTL_STATE_STARTING	= 0,
	CTL_STATE_RUNNING	= 1,
	CTL_STATE_STOPPING	= 2,
	CTL_STATE_FAILED	= 3,	/* capture stopped on an error; daemon still answers */
	CTL_STATE_STALLED	= 4,	/* the daemon's loop is held up (a stalled disk): the
					 * answer has no counters, the last error says why;
					 * source to config are the loop's last ones */
};

enum ctl_mode {
	CTL_MODE_STREAM		= 0,
	CTL_MODE_FLIGHT		= 1,
};

/**
 * struct ctl_status_cpu - per-CPU counters in a STATUS answer
 * Counters are those of struct capture_cpu_status (recorder/capture/capture.h).
 */
struct ctl_status_cpu {
	__u32	cpu;
	__u32	reserved;
	__u64	entries;	/* events written by the producer */
	__u64	overrun;	/* events lost to overwrite */
	__u64	lost;		/* events dropped because the buffer was full */
	__u64	pages;		/* pages moved to files */
	__u64	bytes;		/* bytes of those pages */
	__u64	reserved2;
};

/**
 * struct ctl_status_reply - STATUS answer: this, then @ncpus struct ctl_status_cpu, then
 * @strings_len bytes of NUL-terminated strings in this order: source, events (comma
 * separated), current output file, output directory, config file, last error,
 * triggers (a line each: "KIND:ARGS\tFIRED\tJOINED\tSUPPRESSED\tLAST FILE"), previous
 * boot ("none", "failed: WHY", or "FILE: what it holds"; "" from older daemons), what
 * the armed triggers missed since armed ("MARKERS EVENTS": markers the module's watch
 * had no room for, trigger events overwritten unread, "-" for a watch not open; ""
 * with neither or from older daemons; older clients read the strings before it only).
 */
struct ctl_status_reply {
	__u32	state;		/* enum ctl_state */
	__u32	mode;		/* enum ctl_mode */
	__u32	pid;
	__u32	ncpus;
	__u64	uptime_ns;	/* since the capture started */
	__u64	raw_bytes;	/* page bytes given to writers, all files */
	__u64	file_bytes;	/* bytes written to files, all files */
	__u64	cur_raw_bytes;	/* same, current file */
	__u64	cur_file_bytes;
	__u64	disk_used;	/* bytes of files of the pattern in the output directory */
	__u64	disk_budget;	/* 0 = unlimited */
	__u32	files;		/* files finished since start */
	__u32	deleted;	/* files deleted for the disk budget */
	__u32	snapshots;
	__u32	strings_len;
	__u64	buffer_kb;	/* per-CPU kernel buffer */
	__u32	flags;		/* CTL_STATUS_F_* */
	__u32	cpus_total;	/* CTL_STATUS_F_CPU_PAGES: CPUs in all, */
	__u32	first_cpu;	/* and the first of the @ncpus in this answer */
	__u32	stored;	/* CTL_STATUS_F_STORED: chunks a sync stored uncompressed */
	__u64	spooled;	/* CTL_STATUS_F_SPOOL: chunks the compression threads left to */
	__u64	spool_peak;	/* the spool file (written twice), and its largest size */
};

/*
 * STATUS request payload, optional (none: from CPU 0, as many as fit). A machine with
 * more CPUs than one answer holds (about 1160) is read in pages: the client asks again
 * from the first CPU it lacks, until it has cpus_total.
 */
struct ctl_status_req {
	__u32	first_cpu;
	__u32	max_cpus;	/* at most this many in the answer; 0 = as many as fit */
	__u64	reserved;
};

/* ctl_status_reply.flags */
#define CTL_STATUS_F_SEAMLESS_ROTATE	(1U << 0)	/* file switches lose no events */
#define CTL_STATUS_F_CPU_PAGES		(1U << 1)	/* cpus_total, first_cpu are set */
#define CTL_STATUS_F_SPOOL		(1U << 2)	/* spooled, spool_peak are set */
#define CTL_STATUS_F_STORED		(1U << 3)	/* stored is set (saturates) */

/* SNAPSHOT answer: this, then the path of the file written (NUL-terminated). */
struct ctl_snapshot_reply {
	__u64	raw_bytes;	/* page bytes in the snapshot */
	__u64	file_bytes;	/* size of the file */
	__u64	duration_ns;
	__u64	reserved;
};

#endif /* COMMON_CTL_PROTO_H */
