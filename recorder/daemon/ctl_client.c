// SPDX-License-Identifier: GPL-2.0
/* Control socket client: one request, one response (wire format: common/ctl_proto.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl.h"

ssize_t ctl_exchange_raw(const char *path, const void *msg, size_t len, void *buf,
			 size_t size, unsigned int timeout_ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
	ssize_t n;
	int fd, err;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (timeout_ms && (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
			   setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv))))
		goto fail;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto fail;
	if (send(fd, msg, len, MSG_NOSIGNAL) != (ssize_t)len)
		goto fail;
	n = recv(fd, buf, size, MSG_TRUNC);
	if (n < 0)
		goto fail;
	close(fd);
	if (n == 0)
		return -ECONNRESET;	/* the daemon closed without answering */
	return n;
fail:
	err = errno == EAGAIN ? ETIMEDOUT : errno;
	close(fd);
	return -err;
}

int ctl_request(const char *path, uint16_t cmd, const void *payload, size_t len,
		struct ctl_hdr *resp, void *buf, unsigned int timeout_ms)
{
	static uint32_t seq;
	struct ctl_hdr h = {
		.magic = CTL_MAGIC, .version = CTL_PROTO_VERSION, .code = cmd,
		.payload_len = len, .seq = ++seq,
	};
	uint8_t *msg;
	ssize_t n;

	if (len > CTL_MAX_PAYLOAD)
		return -EMSGSIZE;
	msg = malloc(CTL_MAX_MSG);
	if (!msg)
		return -ENOMEM;
	memcpy(msg, &h, sizeof(h));
	if (len)
		memcpy(msg + sizeof(h), payload, len);
	n = ctl_exchange_raw(path, msg, sizeof(h) + len, msg, CTL_MAX_MSG, timeout_ms);
	if (n < 0) {
		free(msg);
		return (int)n;
	}
	memcpy(resp, msg, n < (ssize_t)sizeof(*resp) ? (size_t)n : sizeof(*resp));
	if (n < (ssize_t)sizeof(*resp) || n > CTL_MAX_MSG || resp->magic != CTL_MAGIC ||
	    resp->payload_len != n - sizeof(*resp) || resp->seq != h.seq) {
		free(msg);
		return -EPROTO;
	}
	memcpy(buf, msg + sizeof(*resp), resp->payload_len);
	free(msg);
	return 0;
}
