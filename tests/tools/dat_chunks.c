// SPDX-License-Identifier: GPL-2.0
/*
 * tests/tools/dat_chunks.c - count a compressed trace.dat's chunks and those stored
 * uncompressed (frame no smaller than its pages), every chunk decompressed on the way.
 * Used by tests/system/016-record-spool.sh.
 *
 *   dat_chunks FILE     prints "chunks N stored S"; exits 1 if FILE cannot be read
 */
#include <stdio.h>
#include <stdlib.h>

#include "dat_parse.h"

int main(int argc, char **argv)
{
	unsigned long long chunks = 0, stored = 0;
	struct dp_file f;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: dat_chunks FILE\n");
		return 2;
	}
	ret = dp_open(argv[1], &f);
	if (ret || !f.buf_compressed) {
		fprintf(stderr, "dat_chunks: %s: %s\n", argv[1],
			ret ? "cannot be parsed" : "not compressed");
		return 1;
	}
	for (int i = 0; !ret && i < f.nr_cpus; i++) {
		unsigned char *pages;
		uint32_t n, s;
		size_t len;

		ret = dp_cpu_pages(&f, i, &pages, &len, &n, &s);
		if (ret)
			break;
		free(pages);
		chunks += n;
		stored += s;
	}
	dp_close(&f);
	if (ret) {
		fprintf(stderr, "dat_chunks: %s: a bad chunk\n", argv[1]);
		return 1;
	}
	printf("chunks %llu stored %llu\n", chunks, stored);
	return 0;
}
