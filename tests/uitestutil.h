// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers for the tests that drive real windows offscreen.
#pragma once

#include <QApplication>
#include <QStandardPaths>
#include <QTest>
#include <QWidget>

namespace headroom::test {

/// Shows a window and makes it active, so that its shortcuts work offscreen.
inline bool showActive(QWidget &window)
{
    window.show();
    QApplication::setActiveWindow(&window);
    window.activateWindow();
    return QTest::qWaitForWindowActive(&window);
}

/// Keeps a suite's settings and standard paths apart from the user's and from other suites.
inline void isolateSettings(const char *suite)
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("HeadroomTest"));
    QCoreApplication::setApplicationName(QString::fromLatin1(suite));
}

} // namespace headroom::test
