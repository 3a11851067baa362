# Yocto / PetaLinux recipe for fpgacnn: the library, the command-line tools, fpgacnn-camera and its
# service, and the board overlays. UNTESTED: written from the Yocto Project reference manual (cmake,
# pkgconfig and systemd classes; git fetcher) without a Yocto build here. See docs/boards.md.
#
# Use: copy into a layer of your own (recipes-fpgacnn/fpgacnn/), add meta-oe (opencv, spdlog, fmt,
# cli11, nlohmann-json, openblas) to bblayers.conf, point FPGACNN_GIT_URI at your fpgacnn repository
# (local.conf or a .bbappend), then `bitbake fpgacnn` or IMAGE_INSTALL:append = " fpgacnn".
SUMMARY = "Darknet CNNs on FPGA accelerators, with a bit-exact CPU fallback"
DESCRIPTION = "fpgacnn runs darknet YOLOv2 networks on an FPGA accelerator through UIO + u-dma-buf \
(Zynq-7000, Zynq UltraScale+) or on the CPU (int16 with NEON, or float with OpenBLAS)."
SECTION = "libs"
# The project has no licence file yet: set LICENSE and LIC_FILES_CHKSUM when it gets one.
LICENSE = "CLOSED"

FPGACNN_GIT_URI ??= ""
SRC_URI = "${FPGACNN_GIT_URI};branch=main"
SRCREV = "${AUTOREV}"
PV = "0.3.0+git${SRCPV}"
S = "${WORKDIR}/git"

python () {
    if not d.getVar("FPGACNN_GIT_URI"):
        bb.fatal("fpgacnn: set FPGACNN_GIT_URI to your repository, e.g. git://HOST/PATH/fpgacnn.git;protocol=https")
}

DEPENDS = "opencv spdlog fmt cli11 nlohmann-json openblas boost dtc-native"

inherit cmake pkgconfig systemd

# No XRT (the UIO driver needs none), no tests or benchmarks on the target image.
EXTRA_OECMAKE = "-DFPGACNN_WITH_XRT=OFF -DFPGACNN_BUILD_TESTS=OFF -DFPGACNN_BUILD_BENCHMARKS=OFF"

# The board overlays, compiled as the project's own test compiles them (dtc -@).
do_compile:append() {
    for source in ${S}/packaging/dts/*.dtso; do
        dtc -@ -I dts -O dtb -o ${B}/$(basename ${source} .dtso).dtbo ${source}
    done
}

do_install:append() {
    install -d ${D}${nonarch_base_libdir}/firmware/xilinx/fpgacnn
    install -m 0644 ${B}/fpgacnn-zynq7000.dtbo ${B}/fpgacnn-zynqmp.dtbo ${D}${nonarch_base_libdir}/firmware/xilinx/fpgacnn/
    # The Kria app folder (xmutil loadapp fpgacnn): shell.json and the overlay as fpgacnn.dtbo;
    # the bitstream fpgacnn.bit.bin is the user's (see packaging/kria/fpgacnn/README.md).
    install -m 0644 ${S}/packaging/kria/fpgacnn/shell.json ${D}${nonarch_base_libdir}/firmware/xilinx/fpgacnn/
    ln -sf fpgacnn-zynqmp.dtbo ${D}${nonarch_base_libdir}/firmware/xilinx/fpgacnn/fpgacnn.dtbo
    if [ -f ${D}${systemd_system_unitdir}/fpgacnn-camera.service ]; then
        sed -i -e 's|/usr/local/bin/|${bindir}/|' ${D}${systemd_system_unitdir}/fpgacnn-camera.service
    fi
}

SYSTEMD_SERVICE:${PN} = "fpgacnn-camera.service"
SYSTEMD_AUTO_ENABLE = "disable"

FILES:${PN} += "${nonarch_base_libdir}/firmware/xilinx/fpgacnn ${datadir}/fpgacnn"
