# SPDX-License-Identifier: MIT
# Makefile - build the kernel and its ISO, boot it, test everything.
# What a target runs is a script in tools/ or tests/checks/, or one command;
# no recipe is longer than three lines.  docs/interface.md states every target.
#
#   make               build/kernel.elf, build/lockref.iso (BIOS + UEFI), build/kernel.asm
#   make run           boot under QEMU; exit 0 only if every test passed (tools/boot/run.sh)
#   make kcsan         the race-detecting kernel (build/kcsan), booted as make run (docs/kcsan.md)
#   make test          every check, "N passed, N failed"; logs in build/test (tests/checks/checks.tab)
#   make test-long     the slow checks make test leaves out (group long), the same way
#   make test-estimates  the table's seconds column from the last run's build/test/*.check
#   make summary       the last make test as Markdown (tools/log/ci_summary.py)
#   make bench         benchmarks in a guest: build/bench/report.md (tools/bench/bench.sh)
#   make bench-native  the same on this machine's cores (CPUS=N, TRACE=1): build/bench-native
#   make trace         boot with tracing: build/trace/trace.json, timeline.png (tools/trace/trace.sh)
#   make bochs         boot under Bochs, serial on stdout and in build/bochs.serial
#   make debug         boot under QEMU stopped, with a gdb stub (tools/boot/kernel.gdb attaches)
#   make lock-rules    every source under clang -Wthread-safety (lib/lock_rules.h)
#   make host-tests    build the host tests of tests/host (make test runs them)
#   make fuzz          every libFuzzer harness of tests/fuzz, FUZZ_SECONDS (60) each
#   make deps          install what all of the above needs (Debian 12, as root; tools/deps.sh)
#   make format        clang-format every C file
#   make clean         remove build/
#   make help          this list
#   make V=1 ...       any of the above with full command lines
#
# Variables (docs/interface.md): SMP ACCEL MACHINE FIRMWARE MEM CPU CMDLINE TIMEOUT.

SMP      ?= 4
ACCEL    ?= auto
MACHINE  ?= q35
FIRMWARE ?= bios
MEM      ?= 512M
CPU      ?= auto
CMDLINE  ?=
TIMEOUT  ?= 300
FUZZ_SECONDS ?= 60
export SMP ACCEL MACHINE FIRMWARE MEM CPU CMDLINE TIMEOUT

include tools/quiet.mk

CC      := gcc
NASM    := nasm
OBJDUMP := objdump
BUILD   := build

# Freestanding, no red zone (interrupts would clobber it), no SSE/x87 state
# in the kernel (never saved), frame pointers kept for panic backtraces.
# These flags mean the same to gcc and clang (the lock-rules build below).
KERNEL_CFLAGS_ANY := -std=gnu11 -O2 -g -ffreestanding -fno-builtin -nostdinc \
	-mno-red-zone -mgeneral-regs-only -mno-sse -mno-sse2 -mno-mmx -mno-80387 \
	-fno-stack-protector -fno-pic -fno-pie -mcmodel=small -fno-omit-frame-pointer \
	-mno-omit-leaf-frame-pointer -fno-asynchronous-unwind-tables -mcx16 \
	-Wall -Wextra -Werror -iquote lib -iquote fs -iquote kernel -I kernel
KERNEL_CFLAGS := $(KERNEL_CFLAGS_ANY) -isystem $(shell $(CC) -print-file-name=include) \
	-fno-toplevel-reorder --param=min-pagesize=0 -MMD -MP
# The suites see the fs suite's and the benchmarks' headers too; the platform never includes a
# suite, only the results' reader reads the benchmarks' names (bench/bench_impls.h, names alone).
SUITE_CFLAGS := -iquote fs/test -iquote bench
BENCH_NAMES_CFLAGS := -iquote bench
KERNEL_LDFLAGS := -nostdlib -static -no-pie -Wl,-T,linker.ld -Wl,-z,max-page-size=0x1000 \
	-Wl,--build-id=none -Wl,-z,noexecstack
NASMFLAGS := -f elf64 -Werror

# What the kernel links, by room: the x86-64 platform, the portable library
# and filesystem, then the suites (boot tests, torture, fs cases, benchmarks).
include tools/sources.mk
C_SRCS   := $(PLATFORM_SRCS) $(LIB_SRCS) $(FS_SRCS) $(SUITE_SRCS)
ASM_SRCS := boot/entry.asm boot/isr.asm boot/trampoline.asm
OBJS     := $(patsubst %.c,$(BUILD)/obj/%.o,$(C_SRCS)) $(patsubst %.asm,$(BUILD)/obj/%.o,$(ASM_SRCS))

KERNEL := $(BUILD)/kernel.elf
ISO    := $(BUILD)/lockref.iso

# The native benchmark program (tests/bench/bench_native.c): the same
# benchmarks, harness and library on host threads.  The portable files get
# no include path into kernel/, so a kernel header there fails the build
# (-I tests/host is for lib/platform.h's <platform_cpu.h> alone);
# only the host-side files (the program, the host platform, the command
# line parser's header) see kernel/.
NATIVE      := $(BUILD)/bench-native
NATIVE_BIN  := $(NATIVE)/bench_native
NATIVE_PORTABLE_SRCS := $(BENCH_SRCS) \
	$(filter-out lib/string.c,$(LIB_SRCS)) $(FS_SRCS)
NATIVE_HOST_SRCS := tests/bench/bench_native.c tests/host/platform_host.c $(CMDLINE_SRCS) \
	tests/host/topology_sysfs.c
NATIVE_OBJS := $(patsubst %.c,$(NATIVE)/obj/%.o,$(NATIVE_PORTABLE_SRCS) $(NATIVE_HOST_SRCS))
NATIVE_CFLAGS := -std=gnu11 -O2 -g -pthread -mcx16 -Wall -Wextra -Werror \
	-iquote lib -iquote fs -iquote bench -I tests/host -MMD -MP

# The off-cost baseline: the same program with the trace hooks compiled
# out (-DTRACE_COMPILED_OUT, lib/trace.h), to run beside bench_native.
NATIVE_UNTRACED := $(NATIVE)/bench_native_untraced
NATIVE_UNTRACED_OBJS := $(patsubst %.c,$(NATIVE)/untraced/%.o,$(NATIVE_PORTABLE_SRCS) \
	$(NATIVE_HOST_SRCS))
$(patsubst %.c,$(NATIVE)/obj/%.o,$(NATIVE_HOST_SRCS)) \
$(patsubst %.c,$(NATIVE)/untraced/%.o,$(NATIVE_HOST_SRCS)): NATIVE_CFLAGS += -iquote kernel \
	-iquote tests/host
$(NATIVE_UNTRACED_OBJS): NATIVE_CFLAGS += -DTRACE_COMPILED_OUT

.PHONY: all run kcsan test test-long test-estimates summary bench bench-native trace bochs debug deps clean format host-tests \
	fuzz lock-rules help
all: $(ISO) $(BUILD)/kernel.asm

$(patsubst %.c,$(BUILD)/obj/%.o,$(SUITE_SRCS)): KERNEL_CFLAGS += $(SUITE_CFLAGS)
$(BUILD)/obj/lib/results_read.o: KERNEL_CFLAGS += $(BENCH_NAMES_CFLAGS)

# One C compile rule for every build of the sources (the kernel, the lock
# rules, the race detector's kernel, the native program traced and not):
# $(1) the object folder, $(2) the quiet line's tag, $(3) the compiler and
# its flags, given with $$ so that each object's own additions (the suites',
# the instrumentation's) are read when the rule runs.
define c_objects
$(1)/%.o: %.c Makefile
	@mkdir -p $$(@D)
	$$(quiet) $(2) $$<
	$$(Q)$(3) -c $$< -o $$@
endef
$(eval $(call c_objects,$(BUILD)/obj,CC,$$(CC) $$(KERNEL_CFLAGS)))

$(BUILD)/obj/%.o: %.asm $(wildcard boot/*.inc) Makefile
	@mkdir -p $(@D)
	$(quiet) AS $<
	$(Q)$(NASM) $(NASMFLAGS) $< -o $@

# The kernel links twice, to carry a table of its own functions (kernel/ksyms.h,
# tools/boot/ksyms.py): the first link, with an empty table, gives their addresses;
# the second links the table of those, and is checked to have them in the same
# places.  $(1) the kernel's folder, $(2) its objects.
define kernel_link
$(1)/ksyms_empty.c: tools/boot/ksyms.py
	@mkdir -p $$(@D)
	$$(Q)python3 tools/boot/ksyms.py --empty -o $$@
$(1)/ksyms%.o: $(1)/ksyms%.c kernel/ksyms.h
	$$(quiet) CC $$<
	$$(Q)$$(CC) $$(KERNEL_CFLAGS) -c $$< -o $$@
$(1)/kernel.nosyms.elf: $(2) $(1)/ksyms_empty.o linker.ld
	$$(quiet) LD $$@
	$$(Q)$$(CC) $$(KERNEL_LDFLAGS) -o $$@ $(2) $(1)/ksyms_empty.o -lgcc
$(1)/ksyms_table.c: $(1)/kernel.nosyms.elf tools/boot/ksyms.py
	$$(quiet) KSYMS $$@
	$$(Q)python3 tools/boot/ksyms.py $$< -o $$@
$(1)/kernel.elf: $(2) $(1)/ksyms_table.o linker.ld
	$$(quiet) LD $$@
	$$(Q)$$(CC) $$(KERNEL_LDFLAGS) -o $$@.tmp $(2) $(1)/ksyms_table.o -lgcc && \
		python3 tools/boot/ksyms.py --check $(1)/ksyms_table.c $$@.tmp && mv $$@.tmp $$@
endef
$(eval $(call kernel_link,$(BUILD),$(OBJS)))

# A disassembly with source, for reading a backtrace.
$(BUILD)/kernel.asm: $(KERNEL)
	$(quiet) OBJDUMP $@
	$(Q)$(OBJDUMP) -d -S $< > $@

# The lock rules (lib/lock_rules.h): every kernel source compiled again by
# clang, with its thread-safety analysis as errors.  gcc builds the kernel
# that boots; these objects only prove the rules hold, and are not linked.
LOCK_RULES_CC     := clang
LOCK_RULES_CFLAGS := $(KERNEL_CFLAGS_ANY) -isystem $(shell $(LOCK_RULES_CC) -print-resource-dir \
	2>/dev/null)/include -Wthread-safety -MMD -MP
LOCK_RULES_OBJS   := $(patsubst %.c,$(BUILD)/lock-rules/%.o,$(C_SRCS))
$(patsubst %.c,$(BUILD)/lock-rules/%.o,$(SUITE_SRCS)): LOCK_RULES_CFLAGS += $(SUITE_CFLAGS)
$(BUILD)/lock-rules/lib/results_read.o: LOCK_RULES_CFLAGS += $(BENCH_NAMES_CFLAGS)

$(eval $(call c_objects,$(BUILD)/lock-rules,CLANG,$$(LOCK_RULES_CC) $$(LOCK_RULES_CFLAGS)))

lock-rules: $(LOCK_RULES_OBJS)
	$(Q)$(MAKE) -s -C tests/host lock-rules

$(ISO): $(KERNEL) iso/boot/grub/grub.cfg tools/boot/mkiso.sh
	$(quiet) ISO $@
	$(Q)tools/boot/mkiso.sh --menu $@

run: $(KERNEL)
	$(Q)tools/boot/run.sh

bochs: $(KERNEL)
	$(Q)tools/boot/run-bochs.sh $(BUILD)/bochs.serial

# The data race detector (docs/kcsan.md): the same sources under GCC's
# -fsanitize=thread in build/kcsan, with lib/atomic.h's __atomic form so the
# atomics reach the runtime (kernel/kcsan.c) as marked accesses, and volatile
# accesses told apart (marked too).  Not instrumented: the runtime, the
# exception/NMI and panic paths, and the per-CPU hookup, which runs before
# the CPU's per-CPU data exists.  The boot code (assembly) is the plain build's.
KCSAN        := $(BUILD)/kcsan
KCSAN_KERNEL := $(KCSAN)/kernel.elf
KCSAN_ISO    := $(KCSAN)/lockref.iso
KCSAN_EXEMPT := kernel/kcsan.c kernel/trap.c kernel/panic.c kernel/percpu.c kernel/ksyms.c
KCSAN_CFLAGS := -DKCSAN_BUILD -DLIB_ATOMIC_BUILTINS
KCSAN_TSAN   := -fsanitize=thread --param tsan-instrument-func-entry-exit=0 \
	--param tsan-distinguish-volatile=1
KCSAN_OBJS   := $(patsubst %.c,$(KCSAN)/obj/%.o,$(C_SRCS)) $(patsubst %.asm,$(BUILD)/obj/%.o,$(ASM_SRCS))
$(patsubst %.c,$(KCSAN)/obj/%.o,$(SUITE_SRCS)): KERNEL_CFLAGS += $(SUITE_CFLAGS)
$(KCSAN)/obj/lib/results_read.o: KERNEL_CFLAGS += $(BENCH_NAMES_CFLAGS)
$(patsubst %.c,$(KCSAN)/obj/%.o,$(filter-out $(KCSAN_EXEMPT),$(C_SRCS))): KERNEL_CFLAGS += $(KCSAN_TSAN)

$(eval $(call c_objects,$(KCSAN)/obj,CC-KCSAN,$$(CC) $$(KERNEL_CFLAGS) $$(KCSAN_CFLAGS)))

$(eval $(call kernel_link,$(KCSAN),$(KCSAN_OBJS)))

$(KCSAN_ISO): $(KCSAN_KERNEL) iso/boot/grub/grub.cfg tools/boot/mkiso.sh
	$(quiet) ISO $@
	$(Q)KERNEL_ELF=$(KCSAN_KERNEL) tools/boot/mkiso.sh --menu $@

kcsan: $(KCSAN_ISO)
	$(Q)KERNEL_ELF=$(KCSAN_KERNEL) tools/boot/run.sh

# QEMU stopped at the first instruction, gdb stub on localhost:1234.
debug: $(KERNEL)
	$(Q)DEBUG=1 tools/boot/run-qemu.sh

bench: $(KERNEL)
	$(Q)tools/bench/bench.sh guest

$(eval $(call c_objects,$(NATIVE)/obj,HOSTCC,$$(CC) $$(NATIVE_CFLAGS)))
$(eval $(call c_objects,$(NATIVE)/untraced,HOSTCC,$$(CC) $$(NATIVE_CFLAGS)))

$(NATIVE_UNTRACED): $(NATIVE_UNTRACED_OBJS)
	$(quiet) HOSTLD $@
	$(Q)$(CC) -pthread -o $@ $(NATIVE_UNTRACED_OBJS)

# NATIVE_LDFLAGS=-static: one file that runs on another Linux machine without its libraries.
$(NATIVE_BIN): $(NATIVE_OBJS)
	$(quiet) HOSTLD $@
	$(Q)$(CC) -pthread $(NATIVE_LDFLAGS) -o $@ $(NATIVE_OBJS)

# The low-percentile cost of one get+put of each form and lock (tests/bench/pair_cost.c).
NATIVE_PAIR_COST := $(NATIVE)/pair_cost
NATIVE_PAIR_COST_OBJS := $(filter $(NATIVE)/obj/lib/%,$(NATIVE_OBJS)) \
	$(NATIVE)/obj/bench/cas_loop.o $(NATIVE)/obj/tests/host/platform_host.o \
	$(NATIVE)/obj/tests/host/topology_sysfs.o
$(NATIVE_PAIR_COST): tests/bench/pair_cost.c $(NATIVE_PAIR_COST_OBJS)
	$(quiet) HOSTLD $@
	$(Q)$(CC) $(NATIVE_CFLAGS) -DPAIR_COST_FIXED -o $@ $< $(NATIVE_PAIR_COST_OBJS)

bench-native: $(NATIVE_BIN) $(NATIVE_UNTRACED) $(NATIVE_PAIR_COST)
	$(Q)tools/bench/bench.sh native

trace: $(KERNEL)
	$(Q)tools/trace/trace.sh

# The table is checked first, then the tools, then the ISO is built, then every check
# runs, longest first, as many at a time as there are cores (tests/checks/run.py).
test:
	$(Q)tests/checks/run.py test

test-long:
	$(Q)tests/checks/run.py long

test-estimates:
	$(Q)tests/checks/run.py --estimates

# The last make test as Markdown: what CI shows as the run's summary page.
summary:
	$(Q)python3 tools/log/ci_summary.py $(BUILD)/test

host-tests:
	$(MAKE) -C tests/host all

fuzz:
	$(MAKE) -C tests/fuzz run FUZZ_SECONDS=$(FUZZ_SECONDS)

deps:
	tools/deps.sh install

format:
	clang-format -i $(wildcard bench/*.[ch] kernel/*.[ch] kernel/*/*.[ch] lib/*.[ch] fs/*.[ch] fs/*/*.[ch] \
		tests/*/*.[ch])

clean:
	rm -rf $(BUILD)

# The head comment of this file, without its comment signs.
help:
	@sed -n '2,/^$$/s/^# \{0,1\}//p' Makefile

-include $(OBJS:.o=.d) $(KCSAN_OBJS:.o=.d) $(NATIVE_OBJS:.o=.d) $(NATIVE_UNTRACED_OBJS:.o=.d) $(LOCK_RULES_OBJS:.o=.d)
