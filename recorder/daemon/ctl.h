/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Both ends of the control socket (wire format: common/ctl_proto.h).
 *   server (ctl_server.c): listens, checks each request, dispatches through a table the
 *          daemon supplies, so the adapter stays thin and the checks are unit-tested;
 *   client (ctl_client.c): one request, one response, used by the CLI subcommands.
 */
#ifndef REC_CTL_H
#define REC_CTL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ctl_proto.h"

struct loop;
struct ctl_server;

/* A response being built by a handler: status + payload. */
struct ctl_reply {
	uint16_t	status;		/* enum ctl_status */
	uint32_t	len;		/* payload bytes in buf */
	uint8_t		buf[CTL_MAX_PAYLOAD];
};

struct ctl_peer {
	pid_t	pid;
	uid_t	uid;
	int	may_write;	/* allowed to run read-write commands */
};

/* Handlers fill @r (status defaults to CTL_ST_OK, len to 0). */
typedef void (*ctl_handler_fn)(void *ctx, const struct ctl_peer *peer,
			       const void *payload, uint32_t len, struct ctl_reply *r);

/**
 * struct ctl_command - one row of the dispatch table
 * @code:	enum ctl_cmd
 * @min_len:	smallest payload accepted
 * @max_len:	largest payload accepted
 * @read_only:	may be run by any peer that can connect
 * @fn:		handler
 */
struct ctl_command {
	uint16_t	code;
	uint32_t	min_len;
	uint32_t	max_len;
	int		read_only;
	ctl_handler_fn	fn;
};

/**
 * ctl_check_request() - validate a received request before dispatch
 * @msg:	the message as received
 * @len:	its length (larger than CTL_MAX_MSG if it was truncated)
 * @table:	dispatch table, @n rows
 * @cmd:	set to the matching row when CTL_ST_OK is returned
 *
 * Checks, in order: length >= header, magic, reserved bytes, version, length ==
 * header + payload_len, known command, payload length within the command's range.
 *
 * Return: CTL_ST_OK or the status to answer with.
 */
int ctl_check_request(const void *msg, size_t len, const struct ctl_command *table, size_t n,
		      const struct ctl_command **cmd);

/* Appends a formatted message to an error reply and sets its status. */
void ctl_reply_error(struct ctl_reply *r, uint16_t status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The PING handler (struct ctl_ping), for every table; also BAD_VERSION's payload. */
void ctl_h_ping(void *ctx, const struct ctl_peer *peer, const void *pl, uint32_t len,
		struct ctl_reply *r);

/* Appends @len bytes to @r; returns 0 or -ENOSPC. */
int ctl_reply_add(struct ctl_reply *r, const void *data, size_t len);

/* Text of a status code ("bad version", ...). */
const char *ctl_status_str(int status);

/**
 * ctl_server_open() - bind the control socket and add it to @l
 * @path:	socket path; its directory is created (0750) if missing
 * @gid:	a group whose members may connect and run the read-only commands (the
 *		socket 0660, its directory in that group), 0 = root only (0600)
 * @l:		event loop
 * @table:	dispatch table (@n rows), kept by reference
 * @ctx:	handler context
 *
 * A stale socket (no daemon answering PING) is replaced; a live one is -EADDRINUSE.
 *
 * Return: the server or NULL with errno set (message logged).
 */
struct ctl_server *ctl_server_open(const char *path, int gid, struct loop *l,
				   const struct ctl_command *table, size_t n, void *ctx);

/* The listening socket (the sentinel watches it too). */
int ctl_server_fd(const struct ctl_server *s);

/* Serves the connection @c accepted elsewhere (another thread) from the loop. */
void ctl_server_adopt(struct ctl_server *s, int c);

/**
 * ctl_serve_request() - read, check and answer one request on connected @fd
 * @table:	dispatch table, @n rows, handlers called with @ctx
 * @gid:	as for ctl_server_open()
 * @rx:		CTL_MAX_MSG bytes, @r: the reply: the caller's, so that a second
 *		thread can serve with buffers of its own
 */
void ctl_serve_request(int fd, const struct ctl_command *table, size_t n, void *ctx, int gid,
		       uint8_t *rx, struct ctl_reply *r);

/* Closes the socket and every connection, and unlinks the path. Accepts NULL. */
void ctl_server_close(struct ctl_server *s);

/**
 * ctl_request() - send one request and wait for its response
 * @path:	socket path
 * @cmd:	enum ctl_cmd
 * @payload:	request payload (may be NULL when @len is 0)
 * @len:	payload length
 * @resp:	receives the response header
 * @buf:	receives the response payload (CTL_MAX_PAYLOAD bytes)
 * @timeout_ms:	how long to wait for the answer (0 = forever)
 *
 * Return: 0 when a well-formed response arrived (its status is in @resp->code), or
 * -errno: -ENOENT/-ECONNREFUSED when no daemon listens, -ETIMEDOUT, -EPROTO.
 */
int ctl_request(const char *path, uint16_t cmd, const void *payload, size_t len,
		struct ctl_hdr *resp, void *buf, unsigned int timeout_ms);

/* Low level, for tests: sends @len raw bytes, receives the raw answer into @buf. */
ssize_t ctl_exchange_raw(const char *path, const void *msg, size_t len, void *buf,
			 size_t size, unsigned int timeout_ms);

#endif /* REC_CTL_H */
