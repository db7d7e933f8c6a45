// SPDX-License-Identifier: GPL-3.0-or-later
// What a user waits for when starting Headroom, measured from outside on the real program:
//  - window_first_paint: launch to the chart's first painted frame, with the last scenario
//    restored from the settings (offscreen platform; the program prints "first-paint" when
//    HEADROOM_BENCH_FIRST_PAINT is set);
//  - cli_estimate_first_output / cli_estimate_process: `headroom estimate EXAMPLE` to its first
//    output and to its exit;
//  - window_idle_rss: the window's resident memory two seconds after its first frame.
#include "benchutil.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <QThread>
#include <cstdio>

namespace {

const QString kProgram = QStringLiteral(HEADROOM_BINARY);
const QString kExample = QStringLiteral(HEADROOM_SOURCE_DIR "/examples/llama2-7b-lora.headroom.json");

/// The window's last session: the example scenario, as MainWindow saves it.
bool writeSettings(const QString &configHome)
{
    QFile example(kExample);
    if (!example.open(QIODevice::ReadOnly))
        return false;
    QSettings settings(configHome + QStringLiteral("/Headroom/headroom.conf"), QSettings::IniFormat);
    settings.setValue(QStringLiteral("session/scenario"), QString::fromUtf8(example.readAll()));
    settings.sync();
    return settings.status() == QSettings::NoError;
}

/// Starts the window and waits for its first painted frame; returns the nanoseconds since
/// start, or -1.
qint64 startWindow(QProcess &process)
{
    QElapsedTimer clock;
    clock.start();
    process.start(kProgram, {});
    QByteArray out;
    while (!out.contains("first-paint\n")) {
        if (!process.waitForReadyRead(30000))
            return -1;
        out += process.readAllStandardOutput();
    }
    return clock.nsecsElapsed();
}

void stop(QProcess &process)
{
    process.kill();
    process.waitForFinished();
}

/// VmRSS of a running process in bytes (Linux), or -1.
double residentBytes(qint64 pid)
{
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toDouble() * 1024;
    return -1;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QTemporaryDir config;
    if (!config.isValid() || !writeSettings(config.path()))
        return 1;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), config.path());
    env.insert(QStringLiteral("HEADROOM_BENCH_FIRST_PAINT"), QStringLiteral("1"));
    bool ok = true;

    std::vector<double> paint;
    for (int i = 0; i < 33; ++i) {
        QProcess window;
        window.setProcessEnvironment(env);
        const qint64 ns = startWindow(window);
        stop(window);
        ok &= ns > 0;
        if (i >= 3) // the first runs warm the page cache
            paint.push_back(double(ns));
    }
    headroom::bench::reportTimes("window_first_paint", paint);

    std::vector<double> firstOutput, whole;
    for (int i = 0; i < 55; ++i) {
        QProcess cli;
        cli.setProcessEnvironment(env);
        QElapsedTimer clock;
        clock.start();
        cli.start(kProgram, {QStringLiteral("estimate"), kExample});
        ok &= cli.waitForReadyRead(30000);
        const qint64 output = clock.nsecsElapsed();
        ok &= cli.waitForFinished(30000) && cli.exitCode() == 0;
        const qint64 exited = clock.nsecsElapsed();
        if (i >= 5) {
            firstOutput.push_back(double(output));
            whole.push_back(double(exited));
        }
    }
    headroom::bench::reportTimes("cli_estimate_first_output", firstOutput);
    headroom::bench::reportTimes("cli_estimate_process", whole);

    std::vector<double> rss;
    for (int i = 0; i < 5; ++i) {
        QProcess window;
        window.setProcessEnvironment(env);
        ok &= startWindow(window) > 0;
        QThread::sleep(2); // idle: nothing to do but wait
        rss.push_back(residentBytes(window.processId()));
        stop(window);
    }
    headroom::bench::reportBytes("window_idle_rss", rss);
    if (!ok)
        std::fputs("bench_startup: a run failed\n", stderr);
    return ok ? 0 : 1;
}
