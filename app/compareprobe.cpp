// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom compare PROBE.json [SCENARIO] [--gpu ID] [--model PRESET] [--set k=v]... [--save-case FILE]`:
// the probe's readings (resources/headroom_probe.py) phase by phase beside the estimate's phases,
// and the run's peak saved as a measured case for `headroom validate`.
#include "comparecommand.h"

#include "cli.h"
#include "clicommon.h"
#include "document/documentio.h"
#include "measure/probefile.h"
#include "scenario/scenariojson.h"
#include "torchcompare.h"

#include <QFileInfo>

#include <cmath>

namespace headroom::cli {

namespace {

QString gib(double bytes)
{
    const QString text = q(formatBytes(std::uint64_t(std::llround(std::min(std::abs(bytes), 1e18))), Unit::GiB));
    return bytes < 0 ? QLatin1Char('-') + text : text;
}

} // namespace

int runCompareProbe(const QString &inputPath, const QByteArray &bytes, const QString &scenarioPath,
                    const QStringList &overrides, const QString &modelPreset, const QString &gpuId,
                    const QString &saveCasePath, bool json)
{
    try {
        const ProbeFile probe = readProbeFile(std::string_view(bytes.constData(), std::size_t(bytes.size())));
        std::optional<Scenario> scenario;
        nlohmann::json scenarioDoc;
        std::vector<std::string> notes;
        if (!scenarioPath.isEmpty()) {
            scenario = loadScenario(scenarioPath, overrides);
            scenarioDoc = scenarioToJson(*scenario);
        } else {
            LogScenario fromProbe = scenarioFromProbe(probe, {modelPreset.toStdString(), gpuId.toStdString()});
            for (const QString &assignment : overrides)
                applyOverride(fromProbe.document, assignment.toStdString());
            // A --set can give what the probe did not see: only what is still absent is asked for.
            std::vector<std::string> missing;
            for (const std::string &m : fromProbe.missing) {
                const bool given = (m.rfind("the batch", 0) == 0 && fromProbe.document["train"].contains("micro_batch") &&
                                    fromProbe.document["train"].contains("seq_len")) ||
                                   (m.rfind("the method", 0) == 0 && fromProbe.document["train"].contains("method") &&
                                    overrides.join(QLatin1Char(' ')).contains(QLatin1String("train.method"))) ||
                                   (m.rfind("the weights", 0) == 0 && overrides.join(QLatin1Char(' ')).contains(QLatin1String("precision.weights"))) ||
                                   (m.rfind("the optimizer", 0) == 0 && overrides.join(QLatin1Char(' ')).contains(QLatin1String("train.optimizer")));
                if (!given)
                    missing.push_back(m);
            }
            if (!missing.empty()) {
                QString message = tr("%1: the probe alone does not describe the run: ").arg(safe(inputPath.toStdString()));
                for (std::size_t i = 0; i < missing.size(); ++i)
                    message += (i ? QLatin1String("; ") : QLatin1String("")) + safe(missing[i]);
                return fail(message);
            }
            notes = fromProbe.notes;
            scenarioDoc = fromProbe.document;
            scenario = scenarioFromDocument(fromProbe.document, QString(), {});
        }
        const Estimate e = estimate(*scenario);
        const ProbeComparison c = compareProbe(probe, e);
        // The case is saved before anything is printed, as for PyTorch's files and logs.
        if (!saveCasePath.isEmpty()) {
            const QString id = QFileInfo(saveCasePath).completeBaseName();
            if (!saveCasePath.endsWith(QLatin1String(".json")) || id.isEmpty())
                return fail(tr("--save-case: the case file must be ID.json (got %1)").arg(safe(saveCasePath.toStdString())));
            QString error;
            const nlohmann::json doc = probeCaseDocument(id, QFileInfo(inputPath).fileName(), probe, *scenario, e, error);
            if (!error.isEmpty())
                return fail(tr("--save-case: %1").arg(error));
            if (const QString failed = writeFileAtomically(saveCasePath, QByteArray::fromStdString(doc.dump(2) + "\n"));
                !failed.isEmpty())
                return fail(tr("--save-case: %1").arg(failed));
        }
        if (json) {
            nlohmann::json phases = nlohmann::json::array();
            for (const ProbePhase &p : c.phases) {
                nlohmann::json growth = nlohmann::json::array();
                for (const auto &[id, bytesAdded] : p.estimatedGrowth)
                    growth.push_back({{"id", consumerKey(id)}, {"bytes", bytesAdded}});
                phases.push_back({{"phase", phaseKey(p.phase)}, {"step", p.step}, {"measured_peak_bytes", p.measuredPeakBytes},
                                  {"measured_reserved_bytes", p.measuredReservedBytes}, {"estimated_bytes", p.estimatedBytes},
                                  {"estimated_growth", growth}});
            }
            out() << q(nlohmann::json({{"format", "headroom-probe-comparison"}, {"version", 1}, {"scenario", scenarioDoc},
                                       {"device", probe.deviceName}, {"phases", phases}, {"findings", c.findings},
                                       {"notes", notes}})
                           .dump(2))
                  << '\n';
        } else {
            QTextStream &o = out();
            o << tr("Probe: %1 (%2 readings, %3)").arg(safe(inputPath.toStdString())).arg(probe.readings.size()).arg(safe(probe.deviceName))
              << '\n'
              << tr("Scenario: %1").arg(scenarioPath.isEmpty() ? tr("as the probe's facts state it") : safe(scenarioPath.toStdString()))
              << '\n';
            for (const std::string &note : notes)
                o << "  - " << safe(note) << '\n';
            o << '\n' << tr("phase").leftJustified(10) << tr("measured peak").rightJustified(14) << tr("estimate").rightJustified(14)
              << "  " << tr("difference") << '\n';
            for (const ProbePhase &p : c.phases) {
                const double d = double(p.estimatedBytes) - double(p.measuredPeakBytes);
                o << QString::fromLatin1(phaseKey(p.phase)).leftJustified(10) << gib(double(p.measuredPeakBytes)).rightJustified(14)
                  << gib(double(p.estimatedBytes)).rightJustified(14) << "  " << (d >= 0 ? QStringLiteral("+") : QString())
                  << gib(d) << '\n';
            }
            if (!c.findings.empty()) {
                o << '\n' << tr("What explains the difference:") << '\n';
                for (const std::string &f : c.findings)
                    o << "  - " << safe(f) << '\n';
            }
            o << '\n' << tr("The estimate is not tuned to the measurement: both are shown as they are.") << '\n';
        }
        out().flush();
        return ExitOk;
    } catch (const ScenarioError &error) {
        return fail((scenarioPath.isEmpty() ? safe(inputPath.toStdString()) : safe(scenarioPath.toStdString())) +
                    QLatin1String(": ") + q(error.what()));
    } catch (const InputError &error) {
        return fail(safe(inputPath.toStdString()) + QLatin1String(": ") + q(error.what()));
    } catch (const std::exception &error) {
        return fail(errorText(error));
    }
}

} // namespace headroom::cli
