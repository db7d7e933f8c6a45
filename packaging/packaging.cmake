# SPDX-License-Identifier: GPL-3.0-or-later
set(CPACK_PACKAGE_NAME headroom)
set(CPACK_PACKAGE_CONTACT "Headroom developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins, fonts-dejavu-core")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
include(CPack)

install(FILES ${PROJECT_SOURCE_DIR}/packaging/headroom.desktop DESTINATION share/applications)
install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/headroom.svg
        DESTINATION share/icons/hicolor/scalable/apps)
