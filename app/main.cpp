// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli.h"
#include "document/documentcontroller.h"
#include "window/mainwindow.h"

#include <QApplication>
#include <QCoreApplication>
#include <QFileInfo>
#include <QIcon>
#include <QPainter>
#include <QPixmap>
#include <QSvgRenderer>
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
    // `headroom FILE` opens a scenario or comparison file in the window.
    const bool openInWindow = arguments.size() == 2 && !arguments.at(1).startsWith(QLatin1Char('-')) &&
                              QFileInfo(arguments.at(1)).isFile();
    if (headroom::isCommandLine(arguments) && !openInWindow) {
        // No display needed: a core application runs anywhere.
        QCoreApplication app(argc, argv);
        return headroom::runCommandLine(app.arguments());
    }
    QApplication app(argc, argv);
    // The icon is an SVG: rendered at the usual sizes, so no icon-engine plugin is needed.
    QSvgRenderer iconSvg(QStringLiteral(":/icons/headroom.svg"));
    QIcon icon;
    for (int size : {16, 24, 32, 48, 64, 128, 256}) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        iconSvg.render(&painter);
        painter.end();
        icon.addPixmap(pixmap);
    }
    QApplication::setWindowIcon(icon);
    headroom::MainWindow window;
    window.show();
    if (openInWindow)
        window.document()->openFile(arguments.at(1));
    return app.exec();
}
