// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart/consumerstyle.h"

#include <QCoreApplication>

namespace headroom {

QString consumerDisplayName(ConsumerId id)
{
    switch (id) {
    case ConsumerId::Weights: return QCoreApplication::translate("headroom", "Weights");
    case ConsumerId::QuantMetadata: return QCoreApplication::translate("headroom", "Quantization metadata");
    case ConsumerId::MasterWeights: return QCoreApplication::translate("headroom", "Master weights");
    case ConsumerId::Gradients: return QCoreApplication::translate("headroom", "Gradients");
    case ConsumerId::OptimizerState: return QCoreApplication::translate("headroom", "Optimizer state");
    case ConsumerId::Activations: return QCoreApplication::translate("headroom", "Activations");
    case ConsumerId::AttentionScores: return QCoreApplication::translate("headroom", "Attention scores");
    case ConsumerId::Logits: return QCoreApplication::translate("headroom", "Logits and loss");
    case ConsumerId::KvCache: return QCoreApplication::translate("headroom", "KV cache");
    case ConsumerId::KvCacheFree: return QCoreApplication::translate("headroom", "KV pool (free)");
    case ConsumerId::Workspace: return QCoreApplication::translate("headroom", "Workspace");
    case ConsumerId::CudaContext: return QCoreApplication::translate("headroom", "CUDA context");
    case ConsumerId::Fragmentation: return QCoreApplication::translate("headroom", "Fragmentation");
    case ConsumerId::Communication: return QCoreApplication::translate("headroom", "NCCL buffers");
    case ConsumerId::GenerationEngine: return QCoreApplication::translate("headroom", "vLLM (generation)");
    }
    return {};
}

QString phaseDisplayName(PhaseId id)
{
    switch (id) {
    case PhaseId::Load: return QCoreApplication::translate("headroom", "Load");
    case PhaseId::Forward: return QCoreApplication::translate("headroom", "Forward");
    case PhaseId::Backward: return QCoreApplication::translate("headroom", "Backward");
    case PhaseId::Optimizer: return QCoreApplication::translate("headroom", "Optimizer step");
    case PhaseId::Prefill: return QCoreApplication::translate("headroom", "Prefill");
    case PhaseId::Decode: return QCoreApplication::translate("headroom", "Decode");
    }
    return {};
}

QColor consumerColor(ConsumerId id, bool dark)
{
    // Okabe-Ito (colour-blind safe) first, then muted companions for the small consumers.
    static const QRgb light[kConsumerCount] = {
        0x0072B2, // weights: blue
        0x56B4E9, // quant metadata: sky blue
        0x009E73, // master weights: bluish green
        0xE69F00, // gradients: orange
        0xD55E00, // optimizer state: vermillion
        0xCC79A7, // activations: reddish purple
        0x882255, // attention scores: wine
        0xF0E442, // logits: yellow
        0x44AA99, // kv cache: teal
        0xA8DDD4, // kv pool free: pale teal (the same pool, not in use)
        0x999933, // workspace: olive
        0x777777, // cuda context: grey
        0xBBBBBB, // fragmentation: light grey
        0x6C6C99, // nccl buffers: slate (outside the allocator, beside the context)
        0x332288, // generation engine: indigo (a second program in the same GPU)
    };
    QColor color(light[static_cast<int>(id)]);
    if (dark && id == ConsumerId::CudaContext)
        color = QColor(0x9A9A9A);
    if (dark && id == ConsumerId::Fragmentation)
        color = QColor(0x5E5E5E);
    if (dark && id == ConsumerId::Communication)
        color = QColor(0x8E8EC0);
    if (dark && id == ConsumerId::GenerationEngine)
        color = QColor(0x7A6AD0);
    return color;
}

} // namespace headroom
