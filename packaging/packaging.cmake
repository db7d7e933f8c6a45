# SPDX-License-Identifier: GPL-3.0-or-later
# What `cmake --install` puts where, and the Debian package: `cpack -G DEB` in a built Release
# tree gives headroom_<version>_<arch>.deb (packaging/README.md). The man page and the icon's
# PNG sizes are made by the build from the program's help and the SVG, so they cannot drift.
include(GNUInstallDirs)

# Who publishes the package. The defaults are placeholders (example.org is reserved for that):
# a distributor sets real ones with -DHEADROOM_MAINTAINER=... -DHEADROOM_HOMEPAGE=...
set(HEADROOM_MAINTAINER "Headroom maintainers <maintainers@users.noreply.a-seed-41ba60f7.example>"
    CACHE STRING "Debian Maintainer field: name <address>")
set(HEADROOM_HOMEPAGE "https://headroom.example.org/" CACHE STRING "Project home page (ends in /)")
set(HEADROOM_SCREENSHOTS "${HEADROOM_HOMEPAGE}screenshots" CACHE STRING
    "Where docs/screenshots/*.png are published (AppStream screenshots)")

set(package_dir ${PROJECT_BINARY_DIR}/packaging)
set(icon_sizes 16 22 24 32 48 64 128 256 512)

configure_file(packaging/headroom.desktop.in ${package_dir}/${HEADROOM_APP_ID}.desktop @ONLY)
configure_file(packaging/metainfo.xml.in ${package_dir}/${HEADROOM_APP_ID}.metainfo.xml @ONLY)
configure_file(packaging/headroom-mime.xml.in ${package_dir}/headroom.xml @ONLY)
configure_file(packaging/copyright.in ${package_dir}/copyright @ONLY)
configure_file(packaging/changelog.in ${package_dir}/changelog @ONLY)

# headroom(1) from `headroom --help-all-man`, gzipped as Debian wants (-9, no timestamp).
add_custom_command(OUTPUT ${package_dir}/headroom.1 ${package_dir}/headroom.1.gz
    COMMAND ${CMAKE_COMMAND} -DHEADROOM=$<TARGET_FILE:headroom> -DOUT=${package_dir}/headroom.1
            -P ${PROJECT_SOURCE_DIR}/packaging/manpage.cmake
    DEPENDS headroom ${PROJECT_SOURCE_DIR}/packaging/manpage.cmake
    COMMENT "Writing the man page headroom(1) from the commands' help" VERBATIM)
add_custom_command(OUTPUT ${package_dir}/changelog.gz
    COMMAND ${CMAKE_COMMAND} -DIN=${package_dir}/changelog -DOUT=${package_dir}/changelog.gz
            -P ${PROJECT_SOURCE_DIR}/packaging/gzip.cmake
    DEPENDS ${package_dir}/changelog ${PROJECT_SOURCE_DIR}/packaging/gzip.cmake VERBATIM)
set(icon_pngs)
foreach(size IN LISTS icon_sizes)
    list(APPEND icon_pngs ${package_dir}/icons/${size}x${size}/apps/headroom.png)
endforeach()
add_custom_command(OUTPUT ${icon_pngs}
    COMMAND headroom_icons ${PROJECT_SOURCE_DIR}/resources/icons/headroom.svg
            ${package_dir}/icons headroom ${icon_sizes}
    DEPENDS headroom_icons ${PROJECT_SOURCE_DIR}/resources/icons/headroom.svg
    COMMENT "Rendering the icon at ${icon_sizes} pixels" VERBATIM)
add_custom_target(headroom_package_files ALL
    DEPENDS ${package_dir}/headroom.1.gz ${package_dir}/changelog.gz ${icon_pngs})

set(CMAKE_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
    GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
install(FILES ${package_dir}/headroom.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${package_dir}/${HEADROOM_APP_ID}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${package_dir}/${HEADROOM_APP_ID}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(FILES ${package_dir}/headroom.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages)
install(FILES resources/icons/headroom.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(DIRECTORY ${package_dir}/icons/ DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor)
install(FILES ${package_dir}/copyright ${package_dir}/changelog.gz README.md docs/scenario-format.md
              docs/estimator.md docs/accuracy.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/headroom)
install(DIRECTORY examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/headroom/examples)
install(DIRECTORY resources/lessons/ DESTINATION ${CMAKE_INSTALL_DATADIR}/headroom/lessons)

set(CPACK_PACKAGE_NAME headroom)
set(CPACK_PACKAGE_VENDOR "Headroom developers")
set(CPACK_PACKAGE_CONTACT "${HEADROOM_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${HEADROOM_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "GPU memory planner for training and serving LLMs
Headroom shows where GPU memory goes when you train or serve a large
language model: weights, gradients, optimizer state, activations,
attention scores, logits, KV cache and overhead, per training phase,
against the capacity of real GPUs. Every number explains itself with
its formula. It covers mixed precision, LoRA, QLoRA, gradient
checkpointing, flash attention, fused cross-entropy, sharding and
offload.

The window compares pinned scenarios, suggests what to change until a
run fits, sweeps sequence length and micro-batch, and plays lessons in
a presenter mode. The command line (headroom estimate, advise,
validate, render) needs no display.")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${HEADROOM_HOMEPAGE}")
# Qt's libraries come from dpkg-shlibdeps; what Qt loads at run time (the platform plugins) and
# the fonts every label needs do not, so they are named here.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins, fonts-dejavu-core")
include(CPack)
