// SPDX-License-Identifier: MIT
/*
 * test_acpi_sleep.c - the S5 (soft-off) sequence of kernel/acpi_sleep.c,
 * as the list of register accesses it makes.
 *
 * No emulator notices a blind PM1 control write, so the sequence is
 * checked access by access: a fake register file answers reads and
 * records every read, write and cache flush, and each case compares the
 * record with the order ACPICA uses (ACPI 6.5 4.8.3, 7.4.2): clear WAK_STS,
 * read PM1x_CNT, write SLP_TYP with everything else kept (SCI_EN above
 * all), flush, write again with SLP_EN.
 */
#include "acpi_sleep.h"
#include "check.h"

#include <string.h>

/* ---- the fake register layer ---- */

enum op { OP_READ, OP_WRITE, OP_FLUSH };

struct access {
	enum op op;
	uint8_t space;
	uint64_t addr;
	unsigned bits;
	uint32_t value; /* written, or returned by the read */
};

#define MAX_ACCESSES 16
#define MAX_REGS     4

struct fake {
	struct access log[MAX_ACCESSES];
	unsigned n;
	struct {
		uint64_t addr;
		uint32_t value;
	} regs[MAX_REGS]; /* what reads return; other registers read as 0 */
};

static void record(struct fake *f, struct access a)
{
	if (f->n < MAX_ACCESSES)
		f->log[f->n] = a;
	f->n++;
}

static uint32_t fake_read(void *ctx, uint8_t space, uint64_t addr, unsigned bits)
{
	struct fake *f = ctx;
	uint32_t v = 0;

	for (unsigned i = 0; i < MAX_REGS; i++)
		if (f->regs[i].addr == addr)
			v = f->regs[i].value;
	record(f, (struct access){OP_READ, space, addr, bits, v});
	return v;
}

static void fake_write(void *ctx, uint8_t space, uint64_t addr, unsigned bits, uint32_t value)
{
	record(ctx, (struct access){OP_WRITE, space, addr, bits, value});
}

static void fake_flush(void *ctx)
{
	record(ctx, (struct access){.op = OP_FLUSH});
}

static const char *op_name[] = {"read", "write", "flush"};

/* The record must be exactly @want[0..@n). */
static void expect(const char *name, const struct fake *f, const struct access *want, unsigned n)
{
	CHECK(f->n == n, "%s: %u accesses, want %u", name, f->n, n);
	for (unsigned i = 0; i < n && i < f->n && i < MAX_ACCESSES; i++) {
		const struct access *g = &f->log[i], *w = &want[i];

		CHECK(g->op == w->op && g->space == w->space && g->addr == w->addr &&
			  g->bits == w->bits && g->value == w->value,
		      "%s: access %u is %s space %u 0x%llx/%u = 0x%x, want %s space %u 0x%llx/%u = "
		      "0x%x",
		      name, i, op_name[g->op], g->space, (unsigned long long)g->addr, g->bits,
		      g->value, op_name[w->op], w->space, (unsigned long long)w->addr, w->bits,
		      w->value);
	}
}

#define IO		 ACPI_GAS_SYSTEM_IO
#define MEM		 ACPI_GAS_SYSTEM_MEMORY
#define WAK		 ACPI_PM1_STS_WAK_STS
#define SCI		 ACPI_PM1_CNT_SCI_EN
#define EN		 ACPI_PM1_CNT_SLP_EN
#define TYP(t)		 ((uint32_t)(t) << ACPI_PM1_CNT_SLP_TYP_SHIFT)
#define PM1_IGNORED_BIT9 (1u << 9) /* ACPI 6.5 Table 4.16: "Ignored", kept as read */

/* A QEMU-like machine: PM1a blocks only, \_S5 = {5, 0}. */
static struct acpi_info qemu_like(void)
{
	return (struct acpi_info){.have_fadt = true,
				  .have_s5 = true,
				  .pm1a_evt = 0x600,
				  .pm1a_cnt = 0x604,
				  .slp_typa = 5,
				  .slp_typb = 0};
}

static void test_pm1a_only(void)
{
	struct acpi_info a = qemu_like();
	/* SCI_EN and bit 9 set, a stale SLP_TYP of 7 and GBL_RLS reading back as set. */
	struct fake f = {.regs = {{0x604, SCI | PM1_IGNORED_BIT9 | TYP(7) | ACPI_PM1_CNT_GBL_RLS}}};
	struct acpi_hw hw = {fake_read, fake_write, fake_flush, &f};
	uint32_t kept = SCI | PM1_IGNORED_BIT9 | TYP(5);
	const struct access want[] = {
	    {OP_WRITE, IO, 0x600, 16, WAK},
	    {OP_READ, IO, 0x604, 16, SCI | PM1_IGNORED_BIT9 | TYP(7) | ACPI_PM1_CNT_GBL_RLS},
	    {OP_WRITE, IO, 0x604, 16, kept},
	    {OP_FLUSH, 0, 0, 0, 0},
	    {OP_WRITE, IO, 0x604, 16, kept | EN},
	};

	CHECK(acpi_enter_s5(&a, &hw) == NULL, "PM1a only: refused");
	expect("PM1a only, SCI_EN set", &f, want, sizeof(want) / sizeof(want[0]));
}

static void test_pm1a_and_b(void)
{
	struct acpi_info a = qemu_like();
	struct fake f = {.regs = {{0x604, SCI}, {0x804, 0}}};
	struct acpi_hw hw = {fake_read, fake_write, fake_flush, &f};
	const struct access want[] = {
	    {OP_WRITE, IO, 0x600, 16, WAK},
	    {OP_WRITE, IO, 0x800, 16, WAK},
	    {OP_READ, IO, 0x604, 16, SCI},
	    {OP_READ, IO, 0x804, 16, 0},
	    {OP_WRITE, IO, 0x604, 16, SCI | TYP(7)},
	    {OP_WRITE, IO, 0x804, 16, TYP(3)},
	    {OP_FLUSH, 0, 0, 0, 0},
	    {OP_WRITE, IO, 0x604, 16, SCI | TYP(7) | EN},
	    {OP_WRITE, IO, 0x804, 16, TYP(3) | EN},
	};

	a.pm1b_evt = 0x800;
	a.pm1b_cnt = 0x804;
	a.slp_typa = 7;
	a.slp_typb = 3;
	CHECK(acpi_enter_s5(&a, &hw) == NULL, "PM1a and PM1b: refused");
	expect("PM1a and PM1b, different types", &f, want, sizeof(want) / sizeof(want[0]));
}

static void test_hw_reduced(void)
{
	struct acpi_info a = {
	    .have_fadt = true,
	    .have_s5 = true,
	    .fadt_flags = ACPI_FADT_HW_REDUCED_ACPI,
	    .sleep_control = {.space = MEM, .bit_width = 8, .address = 0xfe000104},
	    .sleep_status = {.space = IO, .bit_width = 8, .address = 0x1800},
	    .slp_typa = 5};
	struct fake f = {0};
	struct acpi_hw hw = {fake_read, fake_write, fake_flush, &f};
	const struct access want[] = {
	    {OP_WRITE, IO, 0x1800, 8, ACPI_SLEEP_STS_WAK_STS},
	    {OP_FLUSH, 0, 0, 0, 0},
	    {OP_WRITE, MEM, 0xfe000104, 8,
	     5u << ACPI_SLEEP_CNT_SLP_TYP_SHIFT | ACPI_SLEEP_CNT_SLP_EN},
	};

	CHECK(acpi_enter_s5(&a, &hw) == NULL, "hardware-reduced: refused");
	expect("hardware-reduced, sleep registers", &f, want, sizeof(want) / sizeof(want[0]));

	/* No sleep status register: the control write alone. */
	memset(&f, 0, sizeof(f));
	a.sleep_status.address = 0;
	CHECK(acpi_enter_s5(&a, &hw) == NULL, "hardware-reduced without status: refused");
	expect("hardware-reduced, no status register", &f, want + 1, 2);
}

/* Every refusal writes nothing and says why. */
static void test_refusals(void)
{
	static const struct {
		const char *name, *why;
		struct acpi_info a;
	} cases[] = {
	    {"no FADT", "no FADT", {.have_s5 = true, .pm1a_cnt = 0x604}},
	    {"no \\_S5", "no \\_S5", {.have_fadt = true, .pm1a_cnt = 0x604}},
	    {"no PM1a_CNT", "no PM1a control block", {.have_fadt = true, .have_s5 = true}},
	    {"hardware-reduced without a sleep control register",
	     "without a usable sleep control register",
	     {.have_fadt = true,
	      .have_s5 = true,
	      .pm1a_cnt = 0x604,
	      .fadt_flags = ACPI_FADT_HW_REDUCED_ACPI}},
	    {"sleep control register in PCI config space",
	     "without a usable sleep control register",
	     {.have_fadt = true,
	      .have_s5 = true,
	      .fadt_flags = ACPI_FADT_HW_REDUCED_ACPI,
	      .sleep_control = {.space = 2, .address = 0x10}}},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake f = {0};
		struct acpi_hw hw = {fake_read, fake_write, fake_flush, &f};
		const char *why = acpi_enter_s5(&cases[i].a, &hw);

		CHECK(why && strstr(why, cases[i].why), "%s: reason '%s', want '%s'", cases[i].name,
		      why ? why : "(none)", cases[i].why);
		CHECK(f.n == 0, "%s: %u accesses made, want none", cases[i].name, f.n);
	}
}

int main(void)
{
	test_pm1a_only();
	test_pm1a_and_b();
	test_hw_reduced();
	test_refusals();
	return check_exit("test_acpi_sleep");
}
