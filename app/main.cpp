// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli.h"
#include "mainwindow.h"

#include <QApplication>
#include <QCoreApplication>
#include <cstdio>
#include <memory>

int main(int argc, char *argv[])
{
    QCoreApplication::setOrganizationName(QStringLiteral("Headroom"));
    QCoreApplication::setApplicationName(QStringLiteral("headroom"));
    QCoreApplication::setApplicationVersion(QStringLiteral(HEADROOM_VERSION));

    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);

    if (headroom::commandNeedsGui(arguments)) {
        // Drawing needs a GUI application but no display: offscreen unless one was chosen.
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        // Qt's start-up notices (XDG_RUNTIME_DIR, ...) would break "one clear line" on errors.
        qInstallMessageHandler([](QtMsgType type, const QMessageLogContext &, const QString &message) {
            if (type == QtCriticalMsg || type == QtFatalMsg)
                std::fprintf(stderr, "%s\n", qPrintable(message));
        });
        QApplication app(argc, argv);
        return headroom::runCommandLine(app.arguments());
    }
    if (headroom::isCommandLine(arguments)) {
        // No display needed: a core application runs anywhere.
        QCoreApplication app(argc, argv);
        return headroom::runCommandLine(app.arguments());
    }
    QApplication app(argc, argv);
    headroom::MainWindow window;
    window.show();
    return app.exec();
}
