// SPDX-License-Identifier: GPL-3.0-or-later
// The Debian package as a user gets it: cpack -G DEB in this build tree, the control fields and
// the file list, lintian, then the program run from the unpacked package (no display), and the
// desktop entry, AppStream metainfo, MIME type and man page checked with their own tools. A
// check whose tool is not installed is skipped (scripts/common.sh installs them).
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

namespace {

const QString kVersion = QStringLiteral(HEADROOM_VERSION);
const QString kAppId = QStringLiteral(HEADROOM_APP_ID);
const QString kMimeType = QStringLiteral(HEADROOM_MIME_TYPE);
const QString kSourceDir = QStringLiteral(HEADROOM_SOURCE_DIR);

struct Run
{
    int exitCode = -1; ///< -1 when it crashed, timed out or could not start
    QString out;
    QString err;
};

/// Runs a program without a display (DISPLAY, WAYLAND_DISPLAY and QT_QPA_PLATFORM removed),
/// with `extra` added to the environment.
Run run(const QString &program, const QStringList &arguments, int timeoutMs = 300000,
        const QProcessEnvironment &extra = {})
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        env.remove(QString::fromLatin1(name));
    env.insert(extra);
    process.setProcessEnvironment(env);
    process.start(program, arguments);
    if (!process.waitForFinished(timeoutMs))
        return {-1, {}, QStringLiteral("did not finish: ") + process.errorString()};
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

QString tool(const char *name) { return QStandardPaths::findExecutable(QString::fromLatin1(name)); }

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestPackaging : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_deb;
    QString m_root; ///< the package unpacked
    QString m_contents;

    QString unpacked(const QString &path) const { return m_root + path; }
    QString binary() const { return unpacked(QStringLiteral("/usr/bin/headroom")); }

    /// `headroom --help`'s commands, read from its "Commands:" list.
    QStringList commands()
    {
        const Run help = run(binary(), {QStringLiteral("--help")});
        QStringList names;
        bool listing = false;
        for (const QString &line : help.out.split(QLatin1Char('\n'))) {
            if (line.startsWith(QLatin1String("Commands:")))
                listing = true;
            else if (listing && line.trimmed().isEmpty())
                break;
            else if (listing)
                names << line.trimmed().section(QLatin1Char(' '), 0, 0);
        }
        return names;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        if (tool("dpkg-deb").isEmpty() || tool("dpkg-shlibdeps").isEmpty())
            QSKIP("dpkg-dev is not installed (scripts/common.sh installs it)");
        // cpack reads this build tree's configuration and writes into a folder of its own.
        const QString out = m_dir.filePath(QStringLiteral("cpack"));
        const Run cpack = run(QStringLiteral(HEADROOM_CPACK),
                              {QStringLiteral("-G"), QStringLiteral("DEB"), QStringLiteral("--config"),
                               QStringLiteral(HEADROOM_BUILD_DIR "/CPackConfig.cmake"),
                               QStringLiteral("-B"), out},
                              600000);
        QVERIFY2(cpack.exitCode == 0, qPrintable(cpack.out + cpack.err));
        const QStringList debs = QDir(out).entryList({QStringLiteral("*.deb")}, QDir::Files);
        QCOMPARE(debs.size(), 1);
        m_deb = QDir(out).filePath(debs.first());
        m_root = m_dir.filePath(QStringLiteral("root"));
        const Run extract = run(QStringLiteral("dpkg-deb"), {QStringLiteral("-x"), m_deb, m_root});
        QVERIFY2(extract.exitCode == 0, qPrintable(extract.err));
        const Run contents = run(QStringLiteral("dpkg-deb"), {QStringLiteral("--contents"), m_deb});
        QVERIFY2(contents.exitCode == 0, qPrintable(contents.err));
        m_contents = contents.out;
    }

    void fileNameIsDebianStyle()
    {
        const Run arch = run(QStringLiteral("dpkg"), {QStringLiteral("--print-architecture")});
        QCOMPARE(arch.exitCode, 0);
        QCOMPARE(QFileInfo(m_deb).fileName(),
                 QStringLiteral("headroom_%1_%2.deb").arg(kVersion, arch.out.trimmed()));
    }

    void controlFields_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("pattern");
        QTest::newRow("package") << "Package" << "^headroom$";
        QTest::newRow("version") << "Version" << QStringLiteral("^%1$").arg(QRegularExpression::escape(kVersion));
        // A maintainer someone can write to: "Name <local@domain>".
        QTest::newRow("maintainer-with-address") << "Maintainer" << R"(^[^<>]+ <[^<>@\s]+@[^<>@\s]+\.[^<>@\s]+>$)";
        QTest::newRow("depends-platform-plugins") << "Depends" << R"((^|, )qt6-qpa-plugins(,|$))";
        QTest::newRow("depends-fonts") << "Depends" << R"((^|, )fonts-dejavu-core(,|$))";
        // dpkg-shlibdeps found the libraries the program links.
        QTest::newRow("depends-qt-charts") << "Depends" << R"((^|, )libqt6charts6 )";
        QTest::newRow("depends-libc") << "Depends" << R"((^|, )libc6 )";
        QTest::newRow("section") << "Section" << "^science$";
        QTest::newRow("homepage") << "Homepage" << "^https://";
        QTest::newRow("description-has-body") << "Description" << R"(\n .{20,})";
    }

    void controlFields()
    {
        QFETCH(QString, field);
        QFETCH(QString, pattern);
        const Run info = run(QStringLiteral("dpkg-deb"), {QStringLiteral("--field"), m_deb, field});
        QCOMPARE(info.exitCode, 0);
        const QString value = info.out.trimmed();
        QVERIFY2(QRegularExpression(pattern).match(value).hasMatch(), qPrintable(field + QLatin1String(": ") + value));
        QCOMPARE(run(QStringLiteral("dpkg-deb"), {QStringLiteral("--info"), m_deb}).exitCode, 0);
    }

    void contents_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("binary") << "./usr/bin/headroom";
        QTest::newRow("desktop-entry") << QStringLiteral("./usr/share/applications/%1.desktop").arg(kAppId);
        QTest::newRow("metainfo") << QStringLiteral("./usr/share/metainfo/%1.metainfo.xml").arg(kAppId);
        QTest::newRow("mime-type") << "./usr/share/mime/packages/headroom.xml";
        QTest::newRow("man-page") << "./usr/share/man/man1/headroom.1.gz";
        QTest::newRow("copyright") << "./usr/share/doc/headroom/copyright";
        QTest::newRow("changelog") << "./usr/share/doc/headroom/changelog.gz";
        QTest::newRow("icon-svg") << "./usr/share/icons/hicolor/scalable/apps/headroom.svg";
        for (int size : {16, 22, 24, 32, 48, 64, 128, 256, 512})
            QTest::newRow(qPrintable(QStringLiteral("icon-%1").arg(size)))
                << QStringLiteral("./usr/share/icons/hicolor/%1x%1/apps/headroom.png").arg(size);
        // Every example and lesson of the source tree.
        for (const char *folder : {"examples", "resources/lessons"}) {
            const QString installed = QString::fromLatin1(folder).endsWith(QLatin1String("lessons"))
                                          ? QStringLiteral("lessons") : QStringLiteral("examples");
            for (const QString &name : QDir(kSourceDir + QLatin1Char('/') + QLatin1String(folder))
                                           .entryList({QStringLiteral("*.json")}, QDir::Files))
                QTest::newRow(qPrintable(installed + QLatin1Char('-') + name))
                    << QStringLiteral("./usr/share/headroom/%1/%2").arg(installed, name);
        }
    }

    void contents()
    {
        QFETCH(QString, path);
        const QRegularExpression entry(QStringLiteral(R"(^-\S+ root/root\s+\d+ \S+ \S+ %1$)")
                                           .arg(QRegularExpression::escape(path)),
                                       QRegularExpression::MultilineOption);
        QVERIFY2(entry.match(m_contents).hasMatch(), qPrintable(m_contents));
    }

    void everythingUnderUsrAndOwnedByRoot()
    {
        for (const QString &line : m_contents.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            QVERIFY2(line.contains(QLatin1String(" root/root ")), qPrintable(line));
            QVERIFY2(line.contains(QLatin1String(" ./usr/")) || line.endsWith(QLatin1String(" ./")),
                     qPrintable(line));
        }
    }

    void binaryIsStripped()
    {
        if (tool("readelf").isEmpty())
            QSKIP("readelf (binutils) is not installed");
        const Run sections = run(QStringLiteral("readelf"), {QStringLiteral("-S"), QStringLiteral("-W"), binary()});
        QCOMPARE(sections.exitCode, 0);
        QVERIFY(sections.out.contains(QLatin1String(".text")));
        QVERIFY2(!sections.out.contains(QLatin1String(".debug_info")), "debug information left in");
        QVERIFY2(!sections.out.contains(QLatin1String(".symtab")), "symbol table left in");
    }

    void lintianFindsNoErrorsOrWarnings()
    {
        if (tool("lintian").isEmpty())
            QSKIP("lintian is not installed (optional: apt-get install lintian)");
        const Run lintian = run(QStringLiteral("lintian"), {QStringLiteral("--fail-on"), QStringLiteral("error,warning"),
                                                            QStringLiteral("--tag-display-limit"), QStringLiteral("0"), m_deb});
        QVERIFY2(lintian.exitCode == 0, qPrintable(lintian.out + lintian.err));
    }

    void unpackedProgramPrintsItsVersion()
    {
        const Run version = run(binary(), {QStringLiteral("--version")});
        QCOMPARE(version.exitCode, 0);
        const QStringList lines = version.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY2(lines.size() >= 4, qPrintable(version.out));
        QCOMPARE(lines.at(0), QStringLiteral("Headroom ") + kVersion);
        QVERIFY2(lines.at(1).startsWith(QStringLiteral("Qt ") + QLatin1String(qVersion())), qPrintable(lines.at(1)));
        QVERIFY(version.out.contains(QLatin1String("GPL-3.0-or-later")));
        QVERIFY(version.out.contains(QLatin1String("Qt Charts")));
    }

    void unpackedProgramEstimatesTheInstalledExample()
    {
        const Run estimate = run(binary(), {QStringLiteral("estimate"),
            unpacked(QStringLiteral("/usr/share/headroom/examples/llama2-7b-lora.headroom.json"))});
        QVERIFY2(estimate.exitCode == 0, qPrintable(estimate.err));
        // Llama 2 7B's published parameter total, in bf16.
        QVERIFY2(estimate.out.contains(QLatin1String("6,738,415,616 params x 2 B (bf16)")), qPrintable(estimate.out));
        QVERIFY(estimate.out.contains(QLatin1String("Peak (")));
    }

    void unpackedProgramRendersWithoutADisplay()
    {
        const QString png = m_dir.filePath(QStringLiteral("chart.png"));
        const Run chart = run(binary(), {QStringLiteral("render"),
            unpacked(QStringLiteral("/usr/share/headroom/examples/llama2-7b-lora.headroom.json")),
            QStringLiteral("--out"), png, QStringLiteral("--width"), QStringLiteral("800"),
            QStringLiteral("--height"), QStringLiteral("450"), QStringLiteral("--scale"), QStringLiteral("1")});
        QVERIFY2(chart.exitCode == 0, qPrintable(chart.err));
        QCOMPARE(QImage(png).size(), QSize(800, 450));
        const QString pdf = m_dir.filePath(QStringLiteral("deck.pdf"));
        const Run deck = run(binary(), {QStringLiteral("render"),
            unpacked(QStringLiteral("/usr/share/headroom/lessons/ladder.json")), QStringLiteral("--out"), pdf});
        QVERIFY2(deck.exitCode == 0, qPrintable(deck.err));
        QVERIFY(readAll(pdf).startsWith("%PDF-"));
    }

    void desktopEntryIsValid()
    {
        const QString path = unpacked(QStringLiteral("/usr/share/applications/%1.desktop").arg(kAppId));
        const QString entry = QString::fromUtf8(readAll(path));
        QVERIFY2(entry.contains(QStringLiteral("\nMimeType=%1;\n").arg(kMimeType)), qPrintable(entry));
        QVERIFY(!entry.contains(QLatin1String("application/json")));
        QVERIFY(entry.contains(QLatin1String("\nExec=headroom %f\n")));
        if (tool("desktop-file-validate").isEmpty())
            QSKIP("desktop-file-validate (desktop-file-utils) is not installed");
        const Run validate = run(QStringLiteral("desktop-file-validate"), {path});
        QVERIFY2(validate.exitCode == 0 && validate.out.trimmed().isEmpty(), qPrintable(validate.out + validate.err));
    }

    void metainfoIsValid()
    {
        if (tool("appstreamcli").isEmpty())
            QSKIP("appstreamcli (appstream) is not installed");
        const QString path = unpacked(QStringLiteral("/usr/share/metainfo/%1.metainfo.xml").arg(kAppId));
        const Run validate = run(QStringLiteral("appstreamcli"), {QStringLiteral("validate"), QStringLiteral("--no-net"),
                                                                  QStringLiteral("--explain"), path});
        QVERIFY2(validate.exitCode == 0, qPrintable(validate.out + validate.err));
    }

    void mimeTypeMatchesTheDocuments()
    {
        if (tool("update-mime-database").isEmpty())
            QSKIP("update-mime-database (shared-mime-info) is not installed");
        const QString mime = unpacked(QStringLiteral("/usr/share/mime"));
        // The unpacked share/ on the search path, as /usr/share is once installed.
        QProcessEnvironment dataDirs;
        dataDirs.insert(QStringLiteral("XDG_DATA_DIRS"), unpacked(QStringLiteral("/usr/share")));
        const Run update = run(QStringLiteral("update-mime-database"), {mime}, 60000, dataDirs);
        QVERIFY2(update.exitCode == 0 && update.err.isEmpty(), qPrintable(update.err));
        const QString globs = QString::fromUtf8(readAll(mime + QLatin1String("/globs2")));
        QVERIFY2(globs.contains(QStringLiteral(":%1:*.headroom.json").arg(kMimeType)), qPrintable(globs));
        QVERIFY2(!globs.contains(QLatin1String(":*.json\n")), qPrintable(globs));
        const QString subclasses = QString::fromUtf8(readAll(mime + QLatin1String("/subclasses")));
        QVERIFY(subclasses.contains(kMimeType + QLatin1String(" application/json")));
        // A lesson is any *.json: its first bytes tell it apart.
        const QByteArray magic = readAll(mime + QLatin1String("/magic"));
        for (const QByteArray &format : {QByteArray("headroom-scenario"), QByteArray("headroom-comparison"),
                                         QByteArray("headroom-lesson")}) {
            QVERIFY2(magic.contains("\"format\": \"" + format + '"'), format.constData());
            const QByteArray shipped = readAll(kSourceDir + QLatin1String(format == "headroom-lesson"
                ? "/resources/lessons/ladder.json" : "/examples/llama2-7b-lora.headroom.json"));
            if (format != "headroom-comparison")
                QVERIFY2(shipped.left(256).contains("\"format\": \"" + format + '"'), format.constData());
        }
    }

    void manPageCoversEveryCommandAndOption()
    {
        const Run gunzip = run(QStringLiteral("gzip"), {QStringLiteral("-dc"),
                                                        unpacked(QStringLiteral("/usr/share/man/man1/headroom.1.gz"))});
        QCOMPARE(gunzip.exitCode, 0);
        const QString page = gunzip.out;
        QVERIFY(page.contains(QStringLiteral(".TH HEADROOM 1 ")));
        const QStringList names = commands();
        QVERIFY2(names.size() >= 4, qPrintable(names.join(QLatin1Char(' '))));
        const QRegularExpression optionName(QStringLiteral(R"(^\s+(?:-\w, )?--([\w-]+))"),
                                            QRegularExpression::MultilineOption);
        for (const QString &name : names) {
            QVERIFY2(page.contains(QStringLiteral("\n.SS ") + QString(name).replace(QLatin1Char('-'), QLatin1String("\\-")) + QLatin1Char('\n')),
                     qPrintable(name));
            const Run help = run(binary(), {name, QStringLiteral("--help")});
            QCOMPARE(help.exitCode, 0);
            int options = 0;
            for (auto match = optionName.globalMatch(help.out); match.hasNext(); ++options) {
                const QString option = match.next().captured(1);
                QVERIFY2(page.contains(QStringLiteral("\\fB\\-\\-%1\\fR").arg(QString(option).replace(QLatin1Char('-'), QLatin1String("\\-")))),
                         qPrintable(name + QLatin1String(" --") + option));
            }
            QVERIFY2(options >= 2, qPrintable(help.out));
        }
        if (tool("man").isEmpty())
            QSKIP("man (man-db) is not installed");
        QProcess man;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("MANWIDTH"), QStringLiteral("80"));
        man.setProcessEnvironment(env);
        man.start(QStringLiteral("man"), {QStringLiteral("--warnings"), QStringLiteral("-E"), QStringLiteral("UTF-8"),
                                          QStringLiteral("-l"), unpacked(QStringLiteral("/usr/share/man/man1/headroom.1.gz"))});
        QVERIFY(man.waitForFinished(60000));
        const QString warnings = QString::fromUtf8(man.readAllStandardError());
        QVERIFY2(man.exitCode() == 0 && warnings.isEmpty(), qPrintable(warnings));
        QVERIFY(QString::fromUtf8(man.readAllStandardOutput()).contains(QLatin1String("estimate")));
    }

    void copyrightIsMachineReadable()
    {
        const QString copyright = QString::fromUtf8(readAll(unpacked(QStringLiteral("/usr/share/doc/headroom/copyright"))));
        QVERIFY(copyright.startsWith(QLatin1String("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n")));
        QVERIFY(copyright.contains(QLatin1String("\nFiles: *\n")));
        QVERIFY(copyright.contains(QLatin1String("\nLicense: GPL-3+\n")));
        QVERIFY(copyright.contains(QLatin1String("/usr/share/common-licenses/GPL-3")));
    }
};

QTEST_GUILESS_MAIN(TestPackaging)
#include "tst_packaging.moc"
