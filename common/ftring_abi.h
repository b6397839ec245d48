/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ftring user-space ABI: device names, the per-CPU mmap layout, the meta page and
 * the ioctls. The one copy of this contract; the module and user space both build it.
 *
 * Devices (created by the module, mode 0600, owner root):
 *   /dev/ftring/cpuN    one per CPU that has (or had) a buffer. mmap + GET_READER +
 *                       poll exactly like upstream's per_cpu/cpuN/trace_pipe_raw
 *                       mapping (include/uapi/linux/trace_mmap.h, Linux >= 6.10).
 *   /dev/ftring/ctl     control ioctls (FTRING_IOC_*); read() returns the event
 *                       formats (see FTRING_IOC_* below and ftring_events.h).
 *   /dev/ftring/marker  write() records one ftring/marker event (a user marker).
 *   /dev/ftring/fxt     write() records one ftring/fxt event (user FXT records).
 *   /dev/ftring/lastboot  read-only: the previous boot's trace, when the module was
 *                       loaded with persist= and that boot left one (see below).
 *
 * Per-CPU mapping (same as upstream):
 *   offset 0                               struct ftring_meta, then zeroes up to
 *                                          meta_page_size
 *   meta_page_size + id * subbuf_size      sub-buffer @id, 0 <= id < nr_subbufs
 * Each sub-buffer is an ftrace ring-buffer page (common/ftrace_page.h): u64 time
 * stamp, 64-bit commit word, events. Only PROT_READ + MAP_SHARED mappings are
 * accepted: PROT_WRITE/PROT_EXEC give EPERM from the module, but on an fd opened
 * O_RDONLY the VFS already refuses PROT_WRITE with EACCES (as for upstream's
 * trace_pipe_raw); MAP_PRIVATE gives EPERM; a window past the end EINVAL. Any
 * page-aligned window inside the mapping may be mapped; a mapping cannot be
 * split (partial munmap/mprotect: EINVAL) nor made writable later. User space
 * reads only the sub-buffer meta->reader.id: the writer never touches a
 * sub-buffer outside its ring except the reader sub-buffer it is still filling,
 * whose data is valid up to its commit length. While any mapping of any CPU
 * exists, changing nr_subbufs fails with EBUSY; an open file or mapping pins the
 * module (rmmod fails with EBUSY/EWOULDBLOCK rather than pulling pages away).
 *
 * Event IDs (common_type) are given out at load by the kernel's trace event type
 * registry, like those of kprobe events: unique on the running kernel (so the
 * module's formats sit next to the kernel's in one trace.dat) and below 32768 (so
 * readers that keep an ID in 16 signed bits, KernelShark, handle them). They differ
 * between loads: FTRING_IOC_GET_EVENT_IDS and the formats read() gives say which.
 */
#ifndef FTRING_ABI_H
#define FTRING_ABI_H

#include <linux/types.h>
#include <linux/ioctl.h>

/*
 * ABI version. Major changes break existing users; minor changes only add
 * (new ioctls, new fields carved out of reserved space).
 *   1.0  first version
 *   1.1  /dev/ftring/fxt and event ftring/fxt
 *   1.2  meta page: FTRING_META_WRITER and @writer (was Reserved1)
 *   1.3  as upstream's trace_mmap.h (Linux 6.10 to 6.18) for every field it defines:
 *        @flags 0 and Reserved1 0 again; @writer moved past upstream's struct
 *        (@meta_struct_len 88 says it is there); a MAP_PRIVATE mapping fails with
 *        EPERM, GET_READER on a CPU nobody maps with ENODEV, never with EBUSY;
 *        event IDs from the kernel's registry (FTRING_IOC_GET_EVENT_IDS,
 *        ftring_status.event_id_base 0), no longer 60000 + index
 *   1.4  persistent rings: ftring_status.flags, FTRING_IOC_SET_BOOT_ID,
 *        /dev/ftring/lastboot and FTRING_IOC_LASTBOOT_RELEASE
 *   1.5  the marker watch: /dev/ftring/watch and FTRING_IOC_WATCH_MARKERS;
 *        FTRING_STATUS_ORPHAN
 */
#define FTRING_ABI_MAJOR	1
#define FTRING_ABI_MINOR	5

#define FTRING_DEV_DIR		"/dev/ftring"
#define FTRING_DEV_CPU_FMT	"/dev/ftring/cpu%d"
#define FTRING_DEV_CTL		"/dev/ftring/ctl"
#define FTRING_DEV_MARKER	"/dev/ftring/marker"
#define FTRING_DEV_FXT		"/dev/ftring/fxt"
#define FTRING_DEV_LASTBOOT	"/dev/ftring/lastboot"
#define FTRING_DEV_WATCH	"/dev/ftring/watch"

/**
 * struct ftring_meta - meta page of a per-CPU mapping.
 *
 * Its first 80 bytes are byte for byte upstream's struct trace_buffer_meta
 * (include/uapi/linux/trace_mmap.h, unchanged from 6.10 to 6.18), so a consumer of
 * trace_pipe_raw mappings reads ftring buffers unchanged; ftring's own field comes
 * after them, as @meta_struct_len tells. Refreshed by FTRING_IOC_GET_READER (and at
 * reset); @writer alone is kept current by the writer itself.
 *
 * @meta_page_size:	Bytes from the start of the mapping to sub-buffer 0.
 * @meta_struct_len:	Size of this structure (88; upstream's is 80).
 * @subbuf_size:	Size of one sub-buffer, its 16-byte header included.
 * @nr_subbufs:		Number of sub-buffers: the ring plus the reader sub-buffer.
 * @reader:		The sub-buffer user space may read.
 * @reader.lost_events:	Events lost (dropped while full, or overwritten) between
 *			the previous reader sub-buffer and this one. The page's commit
 *			word also carries the count (RB_MISSED_EVENTS/_STORED).
 * @reader.id:		ID of the reader sub-buffer, 0 <= id < @nr_subbufs.
 * @reader.read:	Bytes of the reader sub-buffer's data the kernel counts as
 *			consumed once this GET_READER returns (upstream semantics:
 *			it assumes the caller reads everything up to here). After
 *			a swap to a new @reader.id, the data [0, @reader.read) is new;
 *			when the same @reader.id comes back, only the bytes from the
 *			previous @reader.read to the new one are.
 * @flags:		0, as upstream ("0 until new features are supported").
 * @entries:		Events written to this CPU's buffer since the last reset.
 * @overrun:		Events overwritten before being read (overwrite mode).
 * @read:		Events handed to the reader.
 * @Reserved1:		0 (upstream's name).
 * @Reserved2:		0 (upstream's name).
 * @writer:		ftring only, present when @meta_struct_len >= 88: ID of the
 *			sub-buffer the writer is on, kept current as the writer moves.
 *			The writer only leaves a sub-buffer with room to spare, without
 *			padding, so the commit word cannot say it has gone; this can.
 *			While it equals @reader.id the ring holds nothing else and
 *			GET_READER does not give that sub-buffer back.
 *
 * Events dropped because the ring was full (discard mode) or for other reasons
 * are in struct ftring_cpu_stats, not here (upstream has no field for them).
 */
struct ftring_meta {
	__u32	meta_page_size;
	__u32	meta_struct_len;

	__u32	subbuf_size;
	__u32	nr_subbufs;

	struct {
		__u64	lost_events;
		__u32	id;
		__u32	read;
	} reader;

	__u64	flags;

	__u64	entries;
	__u64	overrun;
	__u64	read;

	__u64	Reserved1;
	__u64	Reserved2;

	__u64	writer;
};

/*
 * Per-CPU devices: swap in a new reader sub-buffer and refresh the meta page.
 * Same number and semantics as upstream TRACE_MMAP_IOCTL_GET_READER:
 *  - without O_NONBLOCK, first waits until the poll watermark is reached
 *    (EINTR on a signal);
 *  - if the current reader sub-buffer has data not yet reported, reader.read
 *    moves to its end and reader.id stays;
 *  - otherwise the oldest full (or the partly written current) sub-buffer of
 *    the ring becomes the reader sub-buffer, stamped with the missed-events
 *    count if events were lost before it;
 *  - on an empty buffer only the meta page is refreshed;
 *  - returns 0 (also when writers kept the CPU busy so long that no swap could
 *    be made: only the meta page is refreshed then), ENODEV when the CPU's
 *    buffer is not mapped, as upstream.
 * ioctl(fd, 0) wakes every GET_READER blocked on that CPU (they then return
 * whatever is there), as upstream's cmd 0 does; any other command is ENOTTY.
 */
#define FTRING_IOC_GET_READER	_IO('R', 0x20)

/*
 * Control ioctls on /dev/ftring/ctl. Magic 0xBE is unassigned in
 * Documentation/userspace-api/ioctl/ioctl-number.rst (Linux 6.1); ftring uses
 * 0x00-0x1F. Every argument is validated; a setting that cannot change while
 * recording (or while a buffer is mapped) fails with EBUSY and nothing changes.
 */
#define FTRING_IOC_MAGIC	0xBE

/**
 * struct ftring_version - ABI version of the loaded module.
 * @major:	FTRING_ABI_MAJOR the module implements.
 * @minor:	FTRING_ABI_MINOR the module implements.
 */
struct ftring_version {
	__u32	major;
	__u32	minor;
};

/* Buffer modes (struct ftring_config.mode). */
#define FTRING_MODE_DISCARD	0	/* full ring: new events are dropped, counted lost */
#define FTRING_MODE_OVERWRITE	1	/* full ring: oldest sub-buffer overwritten (overrun) */

/*
 * Clocks (struct ftring_config.clock); the names are trace-cmd's trace_clock
 * names, to be written to the trace.dat clock option.
 */
#define FTRING_CLOCK_LOCAL	0	/* "local": trace_clock_local(), as ftrace's */
#define FTRING_CLOCK_GLOBAL	1	/* "global": trace_clock_global(), ordered across CPUs */
#define FTRING_CLOCK_MONO	2	/* "mono": CLOCK_MONOTONIC (ktime_get_mono_fast_ns) */
#define FTRING_CLOCK_BOOT	3	/* "boot": CLOCK_BOOTTIME (ktime_get_boot_fast_ns) */
#define FTRING_CLOCK_MAX	FTRING_CLOCK_BOOT
/* Initializer of the names, indexed by FTRING_CLOCK_* (user space). */
#define FTRING_CLOCK_NAMES	{ "local", "global", "mono", "boot" }

/**
 * struct ftring_config - buffer settings (FTRING_IOC_GET_CONFIG / _SET_CONFIG).
 * @nr_subbufs:		Sub-buffers per CPU ring, not counting the reader
 *			sub-buffer (the mapping has @nr_subbufs + 1). 2..65536.
 *			Changing it fails with EBUSY while recording or mapped, and
 *			with ENOMEM (nothing changed) when the new rings would not fit
 *			in the memory available (no OOM kill for a trace buffer).
 * @subbuf_size:	Bytes per sub-buffer (the system page size); read-only,
 *			ignored by SET_CONFIG.
 * @mode:		FTRING_MODE_*. EBUSY while recording.
 * @clock:		FTRING_CLOCK_*. EBUSY while recording or mapped; a change
 *			empties every buffer (one clock domain per buffer, as a
 *			tracefs trace_clock change clears the buffer).
 * @watermark:		Full sub-buffers (in the ring, not yet read) that make
 *			poll() report readable and a blocking GET_READER return;
 *			0 = any committed event. At most @nr_subbufs - 1.
 *			May change at any time.
 * @flags:		0.
 * @reserved:		0 (EINVAL otherwise).
 */
struct ftring_config {
	__u32	nr_subbufs;
	__u32	subbuf_size;
	__u32	mode;
	__u32	clock;
	__u32	watermark;
	__u32	flags;
	__u64	reserved[3];
};

/**
 * struct ftring_status - global state (FTRING_IOC_GET_STATUS).
 * @recording:		1 between FTRING_IOC_START and FTRING_IOC_STOP.
 * @nr_cpu_ids:		Upper bound of CPU numbers (devices cpu0..nr_cpu_ids-1
 *			exist for CPUs that have been online since load).
 * @event_id_base:	0: IDs are given out per load (FTRING_IOC_GET_EVENT_IDS).
 *			ABI 1.0-1.2 said 60000 here, the ID of event 0.
 * @nr_events:		Number of events in the schema (bits of the event mask).
 * @events:		Enabled events: bit i = event i of ftring_events.h.
 * @flags:		FTRING_STATUS_* (1.4).
 * @reserved:		0.
 */
struct ftring_status {
	__u32	recording;
	__u32	nr_cpu_ids;
	__u32	event_id_base;
	__u32	nr_events;
	__u64	events;
	__u32	flags;
	__u32	pad;
	__u64	reserved[2];
};

/*
 * The rings live in the persistent region given by the module parameter persist=:
 * their size is the region's (SET_CONFIG with another nr_subbufs gives EINVAL).
 */
#define FTRING_STATUS_PERSIST	0x1U
/* /dev/ftring/lastboot holds the previous boot's trace (until released). */
#define FTRING_STATUS_LASTBOOT	0x2U
/*
 * Recording, and no CPU buffer is mapped, though one was since the start: the reader
 * that ran it is gone (a recorder that died). A new recorder may take the rings over
 * as they are (1.5). A recording nobody has mapped yet is not an orphan.
 */
#define FTRING_STATUS_ORPHAN	0x4U

/**
 * struct ftring_cpu_stats - one CPU's counters (FTRING_IOC_GET_STATS).
 * @cpu:		In: the CPU. ENODEV if it never had a buffer.
 * @online:		Out: 1 if the CPU is online.
 * @entries:		Events written (committed) since the last reset.
 * @overrun:		Events overwritten before being read (overwrite mode).
 * @read:		Events handed to the reader by GET_READER.
 * @bytes:		Bytes of events written (event headers included).
 * @lost:		Events dropped, the sum of the lost_* causes below.
 * @lost_full:		Dropped: ring full (discard mode), or an overwriting
 *			writer caught up with a sub-buffer still being committed.
 * @lost_busy:		Dropped: an NMI arrived during a reader swap, a writer
 *			recursed in its own context (it traced something it called),
 *			or a page switch waited too long for a reader swapping from
 *			another CPU (its CPU taken away: a descheduled vCPU, say).
 * @lost_too_big:	Dropped: larger than a sub-buffer can hold.
 * @nr_subbufs:		Sub-buffers of this CPU's mapping (ring + reader).
 * @reserved:		0.
 *
 * Accounting: attempts = entries + lost, and once everything has been read,
 * entries = read + overrun.
 */
struct ftring_cpu_stats {
	__u32	cpu;
	__u32	online;
	__u64	entries;
	__u64	overrun;
	__u64	read;
	__u64	bytes;
	__u64	lost;
	__u64	lost_full;
	__u64	lost_busy;
	__u64	lost_too_big;
	__u32	nr_subbufs;
	__u32	pad;
	__u64	reserved[4];
};

/**
 * struct ftring_event_ids - the event IDs of this load (FTRING_IOC_GET_EVENT_IDS).
 * @nr:		Out: events in the module's schema (ftring_status.nr_events).
 * @pad:	0.
 * @id:		Out: id[i] = common_type of event i of ftring_events.h; 0 past @nr.
 */
struct ftring_event_ids {
	__u32	nr;
	__u32	pad;
	__u16	id[64];
};

/**
 * struct ftring_boot_id - who wrote the persistent rings (FTRING_IOC_SET_BOOT_ID).
 * @id:		The boot's /proc/sys/kernel/random/boot_id, as 16 bytes. Kept in
 *		the region, so the next boot's readout names the boot that crashed.
 */
struct ftring_boot_id {
	__u8	id[16];
};

/*
 * Previous-boot trace: read() on /dev/ftring/lastboot returns, from offset 0,
 *   struct ftring_lastboot
 *   struct ftring_lastboot_cpu[nr_cpus]
 *   the event formats of the boot that wrote the rings (fmt_len bytes, the text
 *   /dev/ftring/ctl gave then), zero-padded to a multiple of page_size
 *   the kept sub-buffers, CPU after CPU, each CPU's in time order (page_size each)
 * The module kept only sub-buffers that passed its checks (commit length, every
 * event decodes to exactly that length, and, if the region was sealed at a panic,
 * the CRC32 of the sub-buffer recorded then); a reader should check them again.
 * ioctl FTRING_IOC_LASTBOOT_RELEASE frees it; the device then gives ENODATA. Until
 * then a trace that did not end cleanly holds a reference on the module (rmmod
 * would free the only copy).
 */
#define FTRING_LASTBOOT_MAGIC	0x544f4f4254534c46ULL	/* "FLSTBOOT" */
#define FTRING_LASTBOOT_VERSION	1

/*
 * How the previous boot ended (ftring_lastboot.sealed). NONE: neither a panic nor an
 * orderly end (a reset, a hang, power), checked by structure only.
 */
#define FTRING_SEAL_NONE	0
#define FTRING_SEAL_PANIC	1	/* sealed by the panic notifier (CRC per page) */
#define FTRING_SEAL_CLEAN	2	/* reboot, power off or unload: by structure */

/**
 * struct ftring_lastboot - head of the previous-boot image.
 * @magic:	FTRING_LASTBOOT_MAGIC.
 * @version:	FTRING_LASTBOOT_VERSION.
 * @hdr_len:	sizeof(struct ftring_lastboot).
 * @page_size:	Sub-buffer size.
 * @nr_cpus:	Entries of the CPU table that follows.
 * @clock:	FTRING_CLOCK_* the rings were stamped with.
 * @sealed:	FTRING_SEAL_*.
 * @boot_id:	What FTRING_IOC_SET_BOOT_ID gave that boot (zeroes if nothing).
 * @load_ns:	CLOCK_REALTIME when that boot loaded the module.
 * @seal_ns:	CLOCK_REALTIME at the panic (0 if not sealed).
 * @seal_uptime_ns: CLOCK_BOOTTIME at the panic (0 if not sealed).
 * @seal_ts:	The rings' clock at the panic (0 if not sealed).
 * @fmt_len:	Bytes of format text.
 * @nr_pages:	Sub-buffers kept (all CPUs).
 * @dropped:	Sub-buffers that held data but failed a check.
 * @reserved:	0.
 */
struct ftring_lastboot {
	__u64	magic;
	__u32	version;
	__u32	hdr_len;
	__u32	page_size;
	__u32	nr_cpus;
	__u32	clock;
	__u32	sealed;
	__u8	boot_id[16];
	__u64	load_ns;
	__u64	seal_ns;
	__u64	seal_uptime_ns;
	__u64	seal_ts;
	__u32	fmt_len;
	__u32	nr_pages;
	__u64	dropped;
	__u64	reserved[4];
};

/**
 * struct ftring_lastboot_cpu - one CPU of the previous boot.
 * @cpu:	The CPU.
 * @pages:	Sub-buffers kept.
 * @dropped:	Sub-buffers with data that failed a check.
 * @empty:	Sub-buffers without data.
 */
struct ftring_lastboot_cpu {
	__u32	cpu;
	__u32	pages;
	__u32	dropped;
	__u32	empty;
};

/*
 * Marker watch: /dev/ftring/watch tells one reader (a second open gets EBUSY) of the
 * markers whose text holds one of up to FTRING_WATCH_NR literals, as they are
 * written, so that it need not read the rings to find them (recorderd's marker
 * triggers, which then match their regular expression on the text). The marker path
 * looks for the literals only while a watch is set (FTRING_IOC_WATCH_MARKERS); the
 * marker is recorded either way. read() returns whole struct ftring_watch_hit
 * records (EINVAL if the count holds none), blocking unless O_NONBLOCK (EAGAIN);
 * poll() gives EPOLLIN when one waits. At most FTRING_WATCH_QUEUE hits wait; more
 * are counted in the newest waiting one's @missed. Closing the device clears the
 * watch.
 */
#define FTRING_WATCH_NR		8
#define FTRING_WATCH_LIT_MAX	64	/* bytes of a literal, its NUL included */
#define FTRING_WATCH_TEXT	4004	/* a hit's text: any marker, its NUL included */
#define FTRING_WATCH_QUEUE	64

/**
 * struct ftring_watch_spec - what to watch for (FTRING_IOC_WATCH_MARKERS).
 * @nr:		Literals in @lit; 0 clears the watch.
 * @prefix:	Bit i set: literal i counts only at the start of a marker (an
 *		expression anchored with ^); bits from @nr up must be 0.
 * @lit:	NUL-terminated; a marker containing any of them is a hit, and ""
 *		makes every marker one.
 */
struct ftring_watch_spec {
	__u32	nr;
	__u32	prefix;
	char	lit[FTRING_WATCH_NR][FTRING_WATCH_LIT_MAX];
};

/**
 * struct ftring_watch_hit - one marker that held a literal.
 * @pid:	The writer.
 * @cpu:	The CPU it was recorded on.
 * @len:	The marker's length (all of it is in @text: FTRING_MARKER_MAX fits).
 * @missed:	Hits that found the queue full while this one was the newest waiting
 *		(so every miss is told, with no later hit needed).
 * @text:	The marker's text, NUL-terminated.
 */
struct ftring_watch_hit {
	__u32	pid;
	__u32	cpu;
	__u32	len;
	__u32	missed;
	char	text[FTRING_WATCH_TEXT];
};

/* Fill struct ftring_version. */
#define FTRING_IOC_ABI_VERSION	_IOR(FTRING_IOC_MAGIC, 0x00, struct ftring_version)
/* Fill struct ftring_status. */
#define FTRING_IOC_GET_STATUS	_IOR(FTRING_IOC_MAGIC, 0x01, struct ftring_status)
/* Fill struct ftring_config with the current settings. */
#define FTRING_IOC_GET_CONFIG	_IOR(FTRING_IOC_MAGIC, 0x02, struct ftring_config)
/* Apply all of struct ftring_config or nothing (EINVAL, EBUSY, ENOMEM). */
#define FTRING_IOC_SET_CONFIG	_IOW(FTRING_IOC_MAGIC, 0x03, struct ftring_config)
/* Set the enabled-event mask (__u64, bit i = event i); allowed while recording. */
#define FTRING_IOC_SET_EVENTS	_IOW(FTRING_IOC_MAGIC, 0x04, __u64)
/*
 * Start recording. The first START attaches the enabled events' probes; they
 * stay attached (idle, they only test a flag) across STOP until their event is
 * disabled or the module unloads. EALREADY if recording.
 */
#define FTRING_IOC_START	_IO(FTRING_IOC_MAGIC, 0x05)
/* Stop recording; returns once no writer is left in the buffers. EALREADY if stopped. */
#define FTRING_IOC_STOP		_IO(FTRING_IOC_MAGIC, 0x06)
/* Empty every CPU buffer and zero its counters. EBUSY while recording or mapped. */
#define FTRING_IOC_RESET	_IO(FTRING_IOC_MAGIC, 0x07)
/* Fill struct ftring_cpu_stats for stats.cpu. */
#define FTRING_IOC_GET_STATS	_IOWR(FTRING_IOC_MAGIC, 0x08, struct ftring_cpu_stats)
/* Fill struct ftring_event_ids. */
#define FTRING_IOC_GET_EVENT_IDS _IOR(FTRING_IOC_MAGIC, 0x09, struct ftring_event_ids)
/* Record the boot id in the persistent region (ENODEV without persist=). */
#define FTRING_IOC_SET_BOOT_ID	_IOW(FTRING_IOC_MAGIC, 0x0a, struct ftring_boot_id)
/* On /dev/ftring/lastboot: free the previous boot's trace. */
#define FTRING_IOC_LASTBOOT_RELEASE _IO(FTRING_IOC_MAGIC, 0x0b)
/* On /dev/ftring/watch: set the literals (EINVAL for a bad spec; the old one stays). */
#define FTRING_IOC_WATCH_MARKERS _IOW(FTRING_IOC_MAGIC, 0x0c, struct ftring_watch_spec)

/*
 * Event formats: read() on /dev/ftring/ctl returns, for each event of the schema,
 *   "system: <system>\n" followed by the event's format text in tracefs syntax
 *   ("name: ...\nID: ...\nformat:\n\tfield:...\n\nprint fmt: ...\n"),
 * one event after another. Seekable; EOF after the last event.
 *
 * Marker: write() on /dev/ftring/marker of 1..FTRING_MARKER_MAX bytes records one
 * ftring/marker event on the writer's CPU and returns the count; longer writes
 * are truncated to FTRING_MARKER_MAX (the count returned says so). ENODATA when
 * not recording or the marker event is disabled. EFAULT when the text cannot be
 * read (no record), or stopped being readable while it was copied into the record
 * (the one record then reads "<faulted>", as trace_marker's). A write the ring has
 * no room for is dropped and counted (lost_full) and returns the count as if
 * written, so the tracer never makes the traced program fail; with the module
 * parameter strict_writes=1 it fails with ENOSPC instead. The same drop rule holds
 * for /dev/ftring/fxt.
 */
#define FTRING_MARKER_MAX	4000

/*
 * FXT: write() on /dev/ftring/fxt of 8..FTRING_FXT_MAX bytes holding whole FXT event
 * records (common/fxt_validate.h says which) records them as one ftring/fxt event on
 * the writer's CPU and returns the count. A write that is not such records gives
 * EINVAL, one longer than FTRING_FXT_MAX EMSGSIZE; neither stores anything. ENODATA
 * when not recording or the fxt event is disabled; a dropped event as for the marker.
 */
#define FTRING_FXT_MAX		4000

#endif /* FTRING_ABI_H */
