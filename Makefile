# SPDX-License-Identifier: MIT
# Makefile - build the kernel and its ISO, boot it, test everything.
#
#   make          build/kernel.elf and build/lockref.iso (BIOS + UEFI)
#   make run      boot under QEMU; exit status 0 only if every test passed;
#                 build/run.serial and build/junit.xml
#   make test     host tests, model checks, kernel boots; ends "N passed, N failed";
#                 logs and build/test/junit.xml in build/test
#   make summary  the last make test as Markdown (the CI summary page)
#   make bench    boot with run=bench, then build/bench/report.md and scaling.png
#   make bench-native  the same benchmarks on this host's cores (CPUS= limits them),
#                 then build/bench-native/report.md, scaling.png and trace-cost.md
#   make bochs    boot under Bochs, serial on stdout
#   make debug    boot under QEMU stopped, with a gdb stub; tools/kernel.gdb attaches
#   make fuzz     every libFuzzer harness of tests/fuzz, FUZZ_SECONDS (60) each
#   make deps     install what all of the above needs (Debian 12, as root)
#   make V=1 ...  any of the above with full command lines
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
# The suites see the fs suite's and the benchmarks' headers too; the platform never includes a suite.
SUITE_CFLAGS := -iquote fs/test -iquote bench
KERNEL_LDFLAGS := -nostdlib -static -no-pie -Wl,-T,linker.ld -Wl,-z,max-page-size=0x1000 \
	-Wl,--build-id=none -Wl,-z,noexecstack
NASMFLAGS := -f elf64 -Werror

# What the kernel links, by room: the x86-64 platform, the portable library
# and filesystem, then the suites (boot tests, torture, fs cases, benchmarks).
PLATFORM_SRCS := kernel/acpi.c kernel/acpi_sleep.c kernel/acpi_tables.c kernel/apic.c kernel/cmdline.c \
	kernel/cmdline_apply.c \
	kernel/console.c kernel/cpuinfo.c kernel/fence.c kernel/font8x16.c kernel/heap.c kernel/idt.c \
	kernel/ktest.c kernel/main.c kernel/memmap.c kernel/mp.c kernel/mptable.c kernel/multiboot2.c kernel/panic.c kernel/percpu.c \
	kernel/platform.c kernel/power.c kernel/progress.c kernel/results.c kernel/screen.c kernel/serial.c kernel/smp.c \
	kernel/topology_read.c kernel/trap.c kernel/tsc.c kernel/vm.c
LIB_SRCS := lib/barrier.c lib/lockref.c lib/lockref16.c lib/printf.c lib/spinlock.c lib/spinlock_pv.c lib/qspinlock.c lib/trace.c \
	lib/string.c lib/topology.c lib/topology_cpuid.c
LIB_SRCS += lib/spinlock_debug.c
FS_SRCS := fs/fs.c fs/fs_audit.c fs/fs_lookup.c fs/fs_ops.c fs/fs_read.c fs/rcu.c fs/slots.c
# The benchmarks: portable C on lib/platform.h, linked by the kernel and by bench-native.
BENCH_SRCS := bench/bench.c bench/bench_pathwalk.c bench/bench_ref.c bench/bench_refcount.c \
	bench/bench_retry.c bench/bench_stats.c bench/bench_uncontended.c bench/cas_loop.c \
	bench/bench_plan.c bench/bench_c2c.c
SUITE_SRCS := kernel/test/fault_inject.c kernel/test/test_boot.c kernel/test/test_fs.c \
	kernel/test/torture_lockref.c kernel/test/torture_spinlock.c kernel/test/bench_ktest.c \
	fs/test/fs_cases_paths.c fs/test/fs_cases_tree.c fs/test/fs_suite.c fs/test/fs_torture.c \
	$(BENCH_SRCS)
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
NATIVE_HOST_SRCS := tests/bench/bench_native.c tests/host/platform_host.c kernel/cmdline.c \
	kernel/cmdline_apply.c tests/host/topology_sysfs.c
NATIVE_OBJS := $(patsubst %.c,$(NATIVE)/obj/%.o,$(NATIVE_PORTABLE_SRCS) $(NATIVE_HOST_SRCS))
NATIVE_CFLAGS := -std=gnu11 -O2 -g -pthread -mcx16 -Wall -Wextra -Werror \
	-iquote lib -iquote fs -iquote bench -I tests/host -MMD -MP
$(patsubst %.c,$(NATIVE)/obj/%.o,$(NATIVE_HOST_SRCS)): NATIVE_CFLAGS += -iquote kernel \
	-iquote tests/host

# The off-cost baseline: the same program with the trace hooks compiled
# out (-DTRACE_COMPILED_OUT, lib/trace.h), to run beside bench_native.
NATIVE_UNTRACED := $(NATIVE)/bench_native_untraced
NATIVE_UNTRACED_OBJS := $(patsubst %.c,$(NATIVE)/untraced/%.o,$(NATIVE_PORTABLE_SRCS) \
	$(NATIVE_HOST_SRCS))
$(patsubst %.c,$(NATIVE)/untraced/%.o,$(NATIVE_HOST_SRCS)): NATIVE_CFLAGS += -iquote kernel \
	-iquote tests/host

.PHONY: all run test summary bench bench-native trace bochs debug deps clean format host-tests \
	fuzz lock-rules
all: $(ISO) $(BUILD)/kernel.asm

$(patsubst %.c,$(BUILD)/obj/%.o,$(SUITE_SRCS)): KERNEL_CFLAGS += $(SUITE_CFLAGS)

$(BUILD)/obj/%.o: %.c Makefile
	@mkdir -p $(@D)
	$(quiet) CC $<
	$(Q)$(CC) $(KERNEL_CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.asm $(wildcard boot/*.inc) Makefile
	@mkdir -p $(@D)
	$(quiet) AS $<
	$(Q)$(NASM) $(NASMFLAGS) $< -o $@

$(KERNEL): $(OBJS) linker.ld
	$(quiet) LD $@
	$(Q)$(CC) $(KERNEL_LDFLAGS) -o $@ $(OBJS) -lgcc

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

$(BUILD)/lock-rules/%.o: %.c Makefile
	@mkdir -p $(@D)
	$(quiet) CLANG $<
	$(Q)$(LOCK_RULES_CC) $(LOCK_RULES_CFLAGS) -c $< -o $@

lock-rules: $(LOCK_RULES_OBJS)
	$(Q)$(MAKE) -s -C tests/host lock-rules

$(ISO): $(KERNEL) iso/boot/grub/grub.cfg
	$(quiet) ISO $@
	@rm -rf $(BUILD)/isodir
	@mkdir -p $(BUILD)/isodir/boot/grub
	$(Q)strip --strip-debug -o $(BUILD)/isodir/boot/kernel.elf $(KERNEL)
	$(Q)cp iso/boot/grub/grub.cfg $(BUILD)/isodir/boot/grub/grub.cfg
	$(Q)grub-mkrescue -o $@ $(BUILD)/isodir 2> $(BUILD)/grub-mkrescue.log || \
		{ cat $(BUILD)/grub-mkrescue.log; exit 1; }

# The serial log is kept too, and read into JUnit XML for CI test views (docs/ci.md).
run: $(KERNEL)
	$(Q)tools/run-qemu.sh $(BUILD)/run.serial; status=$$?; \
		python3 tools/ktap_junit.py --run $(BUILD)/run.serial --status $$status \
		-o $(BUILD)/junit.xml; exit $$status

bochs: $(KERNEL)
	$(Q)tools/run-bochs.sh

# QEMU stopped at the first instruction, gdb stub on localhost:1234.
debug: $(KERNEL)
	$(Q)DEBUG=1 tools/run-qemu.sh

# The benchmark boots' command line: run=bench unless CMDLINE names the suites itself.
BENCH_CMDLINE = $(strip $(if $(filter run=%,$(CMDLINE)),,run=bench) $(CMDLINE))

bench: $(KERNEL)
	@mkdir -p $(BUILD)/bench
	$(Q)CMDLINE="$(BENCH_CMDLINE)" tools/run-qemu.sh $(BUILD)/bench/serial.log; \
		status=$$?; python3 tools/bench_report.py $(BUILD)/bench/serial.log $(BUILD)/bench \
		&& exit $$status

$(NATIVE)/obj/%.o: %.c Makefile
	@mkdir -p $(@D)
	$(quiet) HOSTCC $<
	$(Q)$(CC) $(NATIVE_CFLAGS) -c $< -o $@

$(NATIVE)/untraced/%.o: %.c Makefile
	@mkdir -p $(@D)
	$(quiet) HOSTCC $<
	$(Q)$(CC) $(NATIVE_CFLAGS) -DTRACE_COMPILED_OUT -c $< -o $@

$(NATIVE_UNTRACED): $(NATIVE_UNTRACED_OBJS)
	$(quiet) HOSTLD $@
	$(Q)$(CC) -pthread -o $@ $(NATIVE_UNTRACED_OBJS)

# NATIVE_LDFLAGS=-static: one file that runs on another Linux machine without its libraries.
$(NATIVE_BIN): $(NATIVE_OBJS)
	$(quiet) HOSTLD $@
	$(Q)$(CC) -pthread $(NATIVE_LDFLAGS) -o $@ $(NATIVE_OBJS)

# CMDLINE takes the kernel's words; a `make bench` log, if there is one, is
# set beside the native figures in the report.  A run that passed is followed
# by the trace hooks' cost: the uncontended case in the untraced, off and on
# builds by turns (tools/trace_cost.py), into trace-cost.md.
bench-native: $(NATIVE_BIN) $(NATIVE_UNTRACED)
	$(Q){ $(NATIVE_BIN) $(if $(CPUS),--cpus=$(CPUS)) $(BENCH_CMDLINE) $(if $(TRACE),trace=all); \
		echo $$? > $(NATIVE)/status; } | tee $(NATIVE)/serial.log; \
		status=$$(cat $(NATIVE)/status); python3 tools/bench_report.py $(NATIVE)/serial.log \
		$(NATIVE) $(if $(wildcard $(BUILD)/bench/serial.log),--against $(BUILD)/bench/serial.log) \
		$(if $(TRACE),&& python3 tools/trace_convert.py $(NATIVE)/serial.log $(NATIVE)/trace) \
		&& { [ $$status -ne 0 ] || python3 tools/trace_cost.py $(if $(CPUS),--cpus=$(CPUS)) \
		$(NATIVE) $(BENCH_CMDLINE); } && exit $$status

# Boot with tracing on (trace=all unless CMDLINE says trace=; TRACE_EVENTS per
# CPU unless it says trace.events=), then turn the serial log's # TRACE lines
# into build/trace/trace.json and timeline.png and judge them
# (docs/tracing.md).  The kernel's default ring keeps the last ~15 ms of a
# lockref torture at SMP=4 under TCG, where a pv sleep ended by its kick is
# often missing (and at 16384, in one run of three); the most it allows
# keeps ~240 ms and held 7 to 53 in every run tried, for ~15 s a run.
TRACE_EVENTS = 65536
TRACE_CMDLINE = $(strip $(CMDLINE) $(if $(filter trace=%,$(CMDLINE)),,trace=all) \
	$(if $(filter trace.events=%,$(CMDLINE)),,trace.events=$(TRACE_EVENTS)))
trace: $(KERNEL)
	@mkdir -p $(BUILD)/trace
	$(Q)CMDLINE="$(TRACE_CMDLINE)" tools/run-qemu.sh $(BUILD)/trace/serial.log; \
		status=$$?; python3 tools/trace_convert.py $(BUILD)/trace/serial.log $(BUILD)/trace \
		&& python3 tools/trace_check.py $(BUILD)/trace/serial.log && exit $$status

test: $(ISO)
	$(Q)tools/test.sh

# The last make test as Markdown: what CI shows as the run's summary page.
summary:
	$(Q)python3 tools/ci_summary.py $(BUILD)/test

host-tests:
	$(MAKE) -C tests/host all

fuzz:
	$(MAKE) -C tests/fuzz run FUZZ_SECONDS=$(FUZZ_SECONDS)

# Debian's nodejs comes without npm, NodeSource's includes one and conflicts with Debian's:
# npm is installed only when missing.  The GitHub workflow validator (docs/ci.md) is a
# registry package, not in Debian.
deps:
	apt-get update
	apt-get install -y --no-install-recommends make gcc libc6-dev nasm python3 \
		grub-common grub-pc-bin grub-efi-amd64-bin xorriso mtools \
		qemu-system-x86 ovmf bochs bochsbios vgabios bochs-term \
		spin gnuplot-nox util-linux perl clang-format clang libclang-rt-14-dev \
		python3-junitparser python3-yaml nodejs
	command -v npm >/dev/null || apt-get install -y --no-install-recommends npm
	npm install -g @action-validator/cli@0.6.0

format:
	clang-format -i $(wildcard bench/*.[ch] kernel/*.[ch] kernel/*/*.[ch] lib/*.[ch] fs/*.[ch] fs/*/*.[ch] \
		tests/*/*.[ch])

clean:
	rm -rf $(BUILD)

-include $(OBJS:.o=.d) $(NATIVE_OBJS:.o=.d) $(LOCK_RULES_OBJS:.o=.d)
