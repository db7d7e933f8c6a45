// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli.h"
#include "classroom/lessoncontroller.h"
#include "document/documentcontroller.h"
#include "window/mainwindow.h"

#include <QApplication>
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QIcon>
#include <QPainter>
#include <QPixmap>
#include <QSvgRenderer>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

namespace {

/// True when the window could not open: no display on X11/Wayland systems (Qt would abort
/// with "could not load the Qt platform plugin xcb ... reinstalling may fix this").
bool missingDisplay()
{
#if defined(Q_OS_UNIX) && !defined(Q_OS_MACOS)
    return qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
           qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
#else
    return false;
#endif
}

/// True when the file is a lesson ("format": "headroom-lesson") rather than a scenario.
bool isLessonFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly) || file.size() > 64 * 1024 * 1024)
        return false;
    const nlohmann::json doc = nlohmann::json::parse(file.readAll().toStdString(), nullptr, false);
    return doc.is_object() && doc.value("format", nlohmann::json()) == "headroom-lesson";
}

/// The icon is an SVG: rendered at the usual sizes, so no icon-engine plugin is needed.
QIcon applicationIcon()
{
    QSvgRenderer svg(QStringLiteral(":/icons/headroom.svg"));
    QIcon icon;
    for (int size : {16, 24, 32, 48, 64, 128, 256}) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        svg.render(&painter);
        painter.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}

} // namespace

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
    // `headroom FILE` opens a scenario, comparison or lesson file in the window.
    const bool openInWindow = arguments.size() == 2 && !arguments.at(1).startsWith(QLatin1Char('-')) &&
                              QFileInfo(arguments.at(1)).isFile();
    if (headroom::isCommandLine(arguments) && !openInWindow) {
        // No display needed: a core application runs anywhere.
        QCoreApplication app(argc, argv);
        return headroom::runCommandLine(app.arguments());
    }
    if (missingDisplay()) {
        std::fputs(qPrintable(QCoreApplication::translate(
                       "main", "headroom: there is no display (DISPLAY and WAYLAND_DISPLAY are not "
                               "set), so the window cannot open. Start it from a desktop session, or "
                               "use the command line, which needs none:\n"
                               "  headroom estimate FILE      the memory budget of a scenario\n"
                               "  headroom render FILE --out chart.png\n"
                               "  headroom --help\n")),
                   stderr);
        return headroom::ExitFailure;
    }
    QApplication app(argc, argv);
    QGuiApplication::setDesktopFileName(QStringLiteral(HEADROOM_APP_ID));
    headroom::MainWindow window;
    QObject::connect(&window, &headroom::MainWindow::firstFramePainted, &app, [] {
        // scripts/bench measures the time from launch to here (HEADROOM_BENCH_FIRST_PAINT set).
        if (qEnvironmentVariableIsSet("HEADROOM_BENCH_FIRST_PAINT")) {
            std::fputs("first-paint\n", stdout);
            std::fflush(stdout);
        }
        // After the first frame: the taskbar can wait for the icon, the user should not.
        QApplication::setWindowIcon(applicationIcon());
    });
    window.show();
    if (openInWindow) {
        if (isLessonFile(arguments.at(1)))
            window.lessons()->openFile(arguments.at(1));
        else
            window.document()->openFile(arguments.at(1));
    }
    return app.exec();
}
