// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom compare SUMMARY|SNAPSHOT SCENARIO [--save-case FILE]`: PyTorch's memory_summary()
// table or a memory snapshot pickle beside the estimate of the run's scenario, with the seed
// articles' diagnostic, and the reading saved as a measured case for `headroom validate`.
#include "comparecommand.h"

#include "cli.h"
#include "clicommon.h"
#include "document/documentio.h"
#include "scenario/scenariojson.h"
#include "torchcompare.h"

#include <QFileInfo>
#include <cmath>

namespace headroom::cli {

namespace {

constexpr double kGiB = 1073741824.0;

QString gib(double bytes) { return QString::number(bytes / kGiB, 'f', 2) + QStringLiteral(" GiB"); }

QString signedGib(double bytes)
{
    return (bytes >= 0 ? QStringLiteral("+") : QString()) + QString::number(bytes / kGiB, 'f', 2) + QStringLiteral(" GiB");
}

/// Writes the case atomically and checked, as every save: a full disk or a folder in the way is
/// an error, never a half-written case at exit 0.
int writeCase(const QString &path, const nlohmann::json &doc)
{
    if (const QString error = writeFileAtomically(path, QByteArray::fromStdString(doc.dump(2) + "\n")); !error.isEmpty())
        return fail(tr("--save-case: %1").arg(error));
    return ExitOk;
}

} // namespace

int saveMeasuredCase(const QString &path, const QString &inputPath, const char *tool, const Scenario &scenario,
                     const Estimate &e, double measuredBytes, const QString &readingNote)
{
    const QString id = QFileInfo(path).completeBaseName();
    if (!path.endsWith(QLatin1String(".json")) || id.isEmpty())
        return fail(tr("--save-case: the case file must be ID.json (got %1)").arg(safe(path.toStdString())));
    return writeCase(path, measuredCaseDocument(id, QFileInfo(inputPath).fileName(), tool, scenario, e, measuredBytes,
                                                readingNote));
}

int runCompareTorch(const QString &inputPath, const QByteArray &bytes, const QString &scenarioPath,
                    const QStringList &overrides, const QString &saveCasePath, bool json)
{
    const std::string_view text(bytes.constData(), std::size_t(bytes.size()));
    const char *tool = torchToolName(torchFileKind(text));
    if (scenarioPath.isEmpty())
        return fail(tr("%1: %2 states no model or batch: give the run's SCENARIO after it")
                        .arg(safe(inputPath.toStdString()), QString::fromLatin1(tool)));
    try {
        const Scenario scenario = loadScenario(scenarioPath, overrides);
        const Estimate e = estimate(scenario);
        const TorchComparison c = compareTorchFile(text, scenario, e);
        const std::vector<TorchReading> &readings = c.readings;
        const QStringList &findings = c.findings;
        const double peakAllocated = c.peakAllocated;
        // The case is saved before anything is printed: a failed save is exit 2 with nothing on
        // stdout, as `compare` of an engine log does.
        if (!saveCasePath.isEmpty()) {
            if (peakAllocated <= 0)
                return fail(tr("--save-case: %1 has no peak allocated figure to save").arg(safe(inputPath.toStdString())));
            const QString note = tr("the reading is the peak of torch.cuda.max_memory_allocated() as the tool printed "
                                    "it, to %1 MiB")
                                     .arg(QString::number(c.resolution / 1048576.0, 'f', 0));
            if (const int saved = saveMeasuredCase(saveCasePath, inputPath, tool, scenario, e, peakAllocated, note);
                saved != ExitOk)
                return saved;
        }
        if (json) {
            nlohmann::json rows = nlohmann::json::array();
            for (const TorchReading &r : readings)
                rows.push_back({{"key", r.key}, {"label", r.label.toStdString()}, {"measured", r.measured},
                                {"estimated", r.estimated ? nlohmann::json(*r.estimated) : nlohmann::json()},
                                {"where", r.where.toStdString()}});
            nlohmann::json list = nlohmann::json::array();
            for (const QString &f : findings)
                list.push_back(f.toStdString());
            out() << q(nlohmann::json({{"format", "headroom-torch-comparison"}, {"version", 1}, {"tool", tool},
                                       {"scenario", scenarioToJson(scenario)}, {"readings", rows}, {"findings", list}})
                           .dump(2))
                  << '\n';
        } else {
            QTextStream &o = out();
            o << tr("%1: %2").arg(QString::fromLatin1(tool), safe(inputPath.toStdString())) << '\n'
              << tr("Scenario: %1").arg(safe(scenarioPath.toStdString())) << "\n\n";
            for (const TorchReading &r : readings)
                o << "  " << r.label.leftJustified(40) << gib(r.measured).rightJustified(12) << "  "
                  << (r.estimated ? tr("estimate %1 (%2)").arg(gib(*r.estimated), signedGib(*r.estimated - r.measured))
                                  : QString())
                         .leftJustified(36)
                  << "  " << r.where << '\n';
            if (!findings.isEmpty()) {
                o << '\n' << tr("What explains the difference:") << '\n';
                for (const QString &f : findings)
                    o << "  - " << safe(f.toStdString()) << '\n';
            }
            o << '\n' << tr("The estimate is not tuned to the measurement: both are shown as they are.") << '\n';
        }
        out().flush();
        return ExitOk;
    } catch (const ScenarioError &error) {
        return fail(safe(scenarioPath.toStdString()) + QLatin1String(": ") + q(error.what()));
    } catch (const InputError &error) {
        return fail(safe(inputPath.toStdString()) + QLatin1String(": ") + q(error.what()));
    } catch (const std::exception &error) {
        return fail(errorText(error));
    }
}

} // namespace headroom::cli
