// SPDX-License-Identifier: GPL-3.0-or-later
// Shared helpers for the core tests: build scenarios from JSON text, print whole breakdowns.
#pragma once

#include "estimate/estimate.h"
#include "estimate/estimatejson.h"
#include "scenario/scenariojson.h"

#include <QByteArray>
#include <QtTest>
#include <nlohmann/json.hpp>
#include <string>

namespace headroom::test {

/// A scenario from the keys given (format and version are added).
inline Scenario scenarioFrom(const std::string &keys)
{
    nlohmann::json doc = nlohmann::json::parse(keys);
    doc["format"] = "headroom-scenario";
    doc["version"] = 1;
    return scenarioFromJson(doc);
}

/// The whole breakdown, for failure messages.
inline QByteArray describe(const Estimate &e)
{
    return QByteArray::fromStdString(estimateToJson(e).dump(1));
}

/// Bytes of one consumer in the peak phase.
inline std::uint64_t bytesOf(const Estimate &e, ConsumerId id) { return e.bytes(id); }

/// Bytes of one consumer in a given phase.
inline std::uint64_t phaseBytes(const Estimate &e, PhaseId phase, ConsumerId id)
{
    for (const Phase &p : e.phases)
        if (p.id == phase)
            return p.bytes[static_cast<std::size_t>(id)];
    return 0;
}

/// The largest amount of a consumer in any phase.
inline std::uint64_t maxOverPhases(const Estimate &e, ConsumerId id)
{
    std::uint64_t most = 0;
    for (const Phase &p : e.phases)
        most = std::max(most, p.bytes[static_cast<std::size_t>(id)]);
    return most;
}

} // namespace headroom::test
