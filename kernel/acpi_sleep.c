// SPDX-License-Identifier: MIT
/*
 * acpi_sleep.c - the S5 (soft-off) register sequence; see acpi_sleep.h.
 *
 * Writing SLP_TYP and SLP_EN in one blind 16-bit store (what this kernel
 * did first) clears SCI_EN, which ACPI 6.5 4.8.3.2.1 says to preserve, and
 * some chipsets latch SLP_TYP only when SLP_EN is written afterwards.
 * ACPICA, which every firmware vendor tests against, does read-modify-write
 * in two steps; so does this file.
 */
#include "acpi_sleep.h"

#define PM1_BITS   16 /* PM1 status and control registers are 16 bits wide */
#define SLEEP_BITS 8  /* the hardware-reduced sleep registers are 8 bits wide */

/* The PM1 control value with SLP_TYP = @slp_typ, from the register's current @value. */
static uint32_t pm1_cnt_with_type(uint32_t value, uint8_t slp_typ)
{
	value &= ~(ACPI_PM1_CNT_SLP_TYP_MASK | ACPI_PM1_CNT_SLP_EN | ACPI_PM1_CNT_GBL_RLS);
	return value |
	       ((uint32_t)slp_typ << ACPI_PM1_CNT_SLP_TYP_SHIFT & ACPI_PM1_CNT_SLP_TYP_MASK);
}

static const char *legacy_s5(const struct acpi_info *a, const struct acpi_hw *hw)
{
	uint32_t cnt_a, cnt_b = 0;

	if (!a->pm1a_cnt)
		return "no PM1a control block in the FADT";
	if (a->pm1a_evt)
		hw->write(hw->ctx, ACPI_GAS_SYSTEM_IO, a->pm1a_evt, PM1_BITS, ACPI_PM1_STS_WAK_STS);
	if (a->pm1b_evt)
		hw->write(hw->ctx, ACPI_GAS_SYSTEM_IO, a->pm1b_evt, PM1_BITS, ACPI_PM1_STS_WAK_STS);
	cnt_a = pm1_cnt_with_type(hw->read(hw->ctx, ACPI_GAS_SYSTEM_IO, a->pm1a_cnt, PM1_BITS),
				  a->slp_typa);
	if (a->pm1b_cnt)
		cnt_b = pm1_cnt_with_type(
		    hw->read(hw->ctx, ACPI_GAS_SYSTEM_IO, a->pm1b_cnt, PM1_BITS), a->slp_typb);
	/* First write: the sleep type alone. */
	hw->write(hw->ctx, ACPI_GAS_SYSTEM_IO, a->pm1a_cnt, PM1_BITS, cnt_a);
	if (a->pm1b_cnt)
		hw->write(hw->ctx, ACPI_GAS_SYSTEM_IO, a->pm1b_cnt, PM1_BITS, cnt_b);
	/* ACPI 6.5 7.4.2: flush the caches before entering the sleep state. */
	hw->flush_caches(hw->ctx);
	/* Second write: the same value with SLP_EN, which starts the transition. */
	hw->write(hw->ctx, ACPI_GAS_SYSTEM_IO, a->pm1a_cnt, PM1_BITS, cnt_a | ACPI_PM1_CNT_SLP_EN);
	if (a->pm1b_cnt)
		hw->write(hw->ctx, ACPI_GAS_SYSTEM_IO, a->pm1b_cnt, PM1_BITS,
			  cnt_b | ACPI_PM1_CNT_SLP_EN);
	return NULL;
}

static bool gas_usable(const struct acpi_gas *g)
{
	return g->address && (g->space == ACPI_GAS_SYSTEM_IO || g->space == ACPI_GAS_SYSTEM_MEMORY);
}

static const char *reduced_s5(const struct acpi_info *a, const struct acpi_hw *hw)
{
	const struct acpi_gas *ctl = &a->sleep_control, *sts = &a->sleep_status;

	if (!gas_usable(ctl))
		return "hardware-reduced ACPI without a usable sleep control register "
		       "(FADT SLEEP_CONTROL_REG)";
	if (gas_usable(sts))
		hw->write(hw->ctx, sts->space, sts->address, SLEEP_BITS, ACPI_SLEEP_STS_WAK_STS);
	hw->flush_caches(hw->ctx);
	hw->write(
	    hw->ctx, ctl->space, ctl->address, SLEEP_BITS,
	    ((uint32_t)a->slp_typa << ACPI_SLEEP_CNT_SLP_TYP_SHIFT & ACPI_SLEEP_CNT_SLP_TYP_MASK) |
		ACPI_SLEEP_CNT_SLP_EN);
	return NULL;
}

const char *acpi_enter_s5(const struct acpi_info *a, const struct acpi_hw *hw)
{
	if (!a->have_fadt)
		return "no FADT";
	if (!a->have_s5)
		return "no \\_S5 package in the DSDT";
	if (a->fadt_flags & ACPI_FADT_HW_REDUCED_ACPI)
		return reduced_s5(a, hw);
	return legacy_s5(a, hw);
}
