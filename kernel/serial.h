// SPDX-License-Identifier: MIT
/* serial.h - COM1, the console every emulator and most servers can capture. */
#ifndef KERNEL_SERIAL_H
#define KERNEL_SERIAL_H

#include <stddef.h>

/* Program COM1 for 115200 baud, 8 data bits, no parity, 1 stop bit. */
void serial_init(void);

/* Send @len bytes, turning "\n" into "\r\n". Callers serialize. */
void serial_write(const char *s, size_t len);

/* Wait until every byte has left the shift register (before power-off). */
void serial_drain(void);

#endif /* KERNEL_SERIAL_H */
