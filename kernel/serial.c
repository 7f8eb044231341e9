// SPDX-License-Identifier: MIT
/*
 * serial.c - polled driver for the 16550 UART at COM1.
 *
 * Polling keeps it usable from any context, including panics with
 * interrupts off.  Register offsets and bits: PC16550D data sheet.
 */
#include "serial.h"

#include "cpu.h"

#include <stdbool.h>
#include <stdint.h>

#define COM1	      0x3f8
#define UART_DATA     0 /* THR/RBR, or divisor low byte when DLAB = 1 */
#define UART_IER      1 /* interrupt enable, or divisor high byte when DLAB = 1 */
#define UART_FCR      2
#define UART_LCR      3
#define UART_MCR      4
#define UART_LSR      5
#define LCR_8N1	      0x03
#define LCR_DLAB      0x80
#define FCR_ENABLE    0x07 /* enable and clear both FIFOs */
#define MCR_DTR_RTS   0x03
#define LSR_THR_EMPTY 0x20 /* room for another byte */
#define LSR_TX_IDLE   0x40 /* holding and shift registers both empty */
#define UART_CLOCK    115200
#define BAUD	      115200
/* Bounded polls: a UART that never becomes ready must not hang the kernel. */
#define UART_POLL_LIMIT 1000000

static bool serial_present;

void serial_init(void)
{
	uint16_t divisor = UART_CLOCK / BAUD;

	outb(COM1 + UART_IER, 0);
	outb(COM1 + UART_LCR, LCR_DLAB);
	outb(COM1 + UART_DATA, divisor & 0xff);
	outb(COM1 + UART_IER, divisor >> 8);
	outb(COM1 + UART_LCR, LCR_8N1);
	outb(COM1 + UART_FCR, FCR_ENABLE);
	outb(COM1 + UART_MCR, MCR_DTR_RTS);
	/* A missing UART reads as all ones; do not wait on it forever. */
	serial_present = inb(COM1 + UART_LSR) != 0xff;
}

static void serial_wait(uint8_t bit)
{
	for (int i = 0; i < UART_POLL_LIMIT; i++)
		if (inb(COM1 + UART_LSR) & bit)
			return;
	serial_present = false; /* stuck: stop waiting on every byte */
}

static void serial_putc(char c)
{
	serial_wait(LSR_THR_EMPTY);
	outb(COM1 + UART_DATA, (uint8_t)c);
}

void serial_write(const char *s, size_t len)
{
	if (!serial_present)
		return;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
	}
}

void serial_drain(void)
{
	/* Bochs drops bytes still in the UART at power-off (docs/tools.md). */
	if (serial_present)
		serial_wait(LSR_TX_IDLE);
}
