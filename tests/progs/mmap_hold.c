// SPDX-License-Identifier: GPL-2.0
/*
 * mmap_hold FILE [BYTES]: map BYTES (default 2 MiB) of FILE shared, touch
 * the first page, print "mapped" and hold the mapping until killed. The
 * tool tests use it to stand for a process that maps a device-dax
 * instance (pmswap setup --dax must refuse to take that instance away).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	size_t len = argc > 2 ? strtoul(argv[2], NULL, 0) : 2UL << 20;
	volatile char *p;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: mmap_hold FILE [BYTES]\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	(void)p[0];
	printf("mapped\n");
	fflush(stdout);
	for (;;)
		pause();
}
