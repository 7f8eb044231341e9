# Makefile - build the kernel and its ISO, boot it, test everything.
#
#   make          build/kernel.elf and build/lockref.iso (BIOS + UEFI)
#   make run      boot under QEMU; exit status 0 only if every test passed
#   make test     host tests, model checks, kernel boots; ends "N passed, N failed"
#   make bench    boot with run=bench, then build/bench/report.md and scaling.png
#   make bochs    boot under Bochs, serial on stdout
#   make fuzz     every libFuzzer harness of tests/fuzz, FUZZ_SECONDS (60) each
#   make deps     install what all of the above needs (Debian 12, as root)
#
# Variables (INTERFACE.md): SMP ACCEL MACHINE FIRMWARE MEM CPU CMDLINE TIMEOUT.

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

CC      := gcc
NASM    := nasm
OBJDUMP := objdump
BUILD   := build

# Freestanding, no red zone (interrupts would clobber it), no SSE/x87 state
# in the kernel (never saved), frame pointers kept for panic backtraces.
KERNEL_CFLAGS := -std=gnu11 -O2 -g -ffreestanding -fno-builtin -nostdinc \
	-isystem $(shell $(CC) -print-file-name=include) \
	-mno-red-zone -mgeneral-regs-only -mno-sse -mno-sse2 -mno-mmx -mno-80387 \
	-fno-stack-protector -fno-pic -fno-pie -mcmodel=small -fno-omit-frame-pointer \
	-mno-omit-leaf-frame-pointer -fno-asynchronous-unwind-tables -fno-toplevel-reorder -mcx16 \
	--param=min-pagesize=0 -Wall -Wextra -Werror -iquote lib -iquote fs -iquote kernel -MMD -MP
KERNEL_LDFLAGS := -nostdlib -static -no-pie -Wl,-T,linker.ld -Wl,-z,max-page-size=0x1000 \
	-Wl,--build-id=none -Wl,-z,noexecstack
NASMFLAGS := -f elf64 -Werror

C_SRCS   := $(sort $(wildcard kernel/*.c)) $(sort $(wildcard lib/*.c)) $(sort $(wildcard fs/*.c))
ASM_SRCS := $(sort $(wildcard boot/*.asm))
OBJS     := $(patsubst %.c,$(BUILD)/obj/%.o,$(C_SRCS)) $(patsubst %.asm,$(BUILD)/obj/%.o,$(ASM_SRCS))

KERNEL := $(BUILD)/kernel.elf
ISO    := $(BUILD)/lockref.iso

.PHONY: all run test bench bochs deps clean format host-tests fuzz
all: $(ISO) $(BUILD)/kernel.asm

$(BUILD)/obj/%.o: %.c Makefile
	@mkdir -p $(@D)
	$(CC) $(KERNEL_CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.asm Makefile
	@mkdir -p $(@D)
	$(NASM) $(NASMFLAGS) $< -o $@

$(KERNEL): $(OBJS) linker.ld
	$(CC) $(KERNEL_LDFLAGS) -o $@ $(OBJS) -lgcc

# A disassembly with source, for reading a backtrace.
$(BUILD)/kernel.asm: $(KERNEL)
	$(OBJDUMP) -d -S $< > $@

$(ISO): $(KERNEL) iso/boot/grub/grub.cfg
	@rm -rf $(BUILD)/isodir
	@mkdir -p $(BUILD)/isodir/boot/grub
	strip --strip-debug -o $(BUILD)/isodir/boot/kernel.elf $(KERNEL)
	cp iso/boot/grub/grub.cfg $(BUILD)/isodir/boot/grub/grub.cfg
	grub-mkrescue -o $@ $(BUILD)/isodir 2> $(BUILD)/grub-mkrescue.log || \
		{ cat $(BUILD)/grub-mkrescue.log; exit 1; }

run: $(KERNEL)
	tools/run-qemu.sh

bochs: $(KERNEL)
	tools/run-bochs.sh

bench: $(KERNEL)
	@mkdir -p $(BUILD)/bench
	CMDLINE="run=bench $(CMDLINE)" tools/run-qemu.sh $(BUILD)/bench/serial.log; \
		status=$$?; python3 tools/bench_report.py $(BUILD)/bench/serial.log $(BUILD)/bench \
		&& exit $$status

test: $(ISO)
	tools/test.sh

host-tests:
	$(MAKE) -C tests/host all

fuzz:
	$(MAKE) -C tests/fuzz run FUZZ_SECONDS=$(FUZZ_SECONDS)

deps:
	apt-get update
	apt-get install -y --no-install-recommends make gcc libc6-dev nasm python3 \
		grub-common grub-pc-bin grub-efi-amd64-bin xorriso mtools \
		qemu-system-x86 ovmf bochs bochsbios vgabios bochs-term \
		spin gnuplot-nox util-linux perl clang-format clang libclang-rt-14-dev

format:
	clang-format -i $(wildcard boot/*.h kernel/*.[ch] lib/*.[ch] fs/*.[ch] tests/host/*.[ch] \
		tests/fuzz/*.[ch] tests/diff/*.[ch])

clean:
	rm -rf $(BUILD)

-include $(OBJS:.o=.d)
