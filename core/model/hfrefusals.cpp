// SPDX-License-Identifier: GPL-3.0-or-later
// The model_types of Transformers' CONFIG_MAPPING_NAMES that the config.json importer does not
// read, each with why: decoder language models whose layers are not mapped yet (named with what
// is missing), and the types that are no decoder LM at all (encoders, encoder-decoders, vision,
// audio and time-series models). tests/data/configs/transformers-model-types.txt lists every type
// of the release with its class; tst_modeltypes checks each against these tables.
#include "model/hfconfigreader.h"

#include <string_view>
#include <utility>

namespace headroom::hf {

namespace {

// What a vision-language wrapper lacks (the language model inside may be a family Headroom reads).
constexpr const char *kVlmTower = "the vision tower and projector of this vision-language wrapper are not counted";
constexpr const char *kAudioTower = "the audio encoder of this speech-language model is not counted";
constexpr const char *kRowMissing = "its key mapping is not written yet";

const std::pair<const char *, const char *> kNotModelled[] = {
    {"gemma3n", "per-layer embeddings, AltUp, LAuReL blocks and KV sharing across layers, and its audio and "
                "MobileNet vision towers"},
    {"gemma3n_text", "per-layer embeddings, AltUp, LAuReL blocks and KV sharing across layers"},
    {"minimax", "lightning-attention layers (MiniMax-01/M1)"},
    {"falcon_h1", "parallel attention and Mamba-2 mixers in every layer, with muP multipliers"},
    {"afmoe", "gated attention with a mixture of experts (AFMoE); its key mapping is not written yet"},
    {"apertus", "the xIELU activation's learned parameters; its key mapping is not written yet"},
    {"arcee", "its ReLU-squared MLP without a gate; its key mapping is not written yet"},
    {"aria", kVlmTower},
    {"aria_text", "Aria's mixture of experts; its key mapping is not written yet"},
    {"audioflamingo3", kAudioTower},
    {"aya_vision", kVlmTower},
    {"bamba", "Mamba-2 and attention layers under Bamba's keys (attn_layer_indices); its key mapping is not written yet"},
    {"bitnet", "ternary BitLinear weights with their sub-norms"},
    {"biogpt", "scaled learned positions and its LayerNorm blocks; its key mapping is not written yet"},
    {"blip-2", kVlmTower},
    {"bloom", "ALiBi with fused query_key_value and embedding LayerNorm; its key mapping is not written yet"},
    {"blt", "byte-level patches with local encoder and decoder models"},
    {"chameleon", "image tokens from a VQ tokenizer and q/k LayerNorms per head; its key mapping is not written yet"},
    {"codegen", "fused qkv_proj with partial rotary and parallel blocks; its key mapping is not written yet"},
    {"cohere", "parallel attention and MLP with LayerNorm without bias; its key mapping is not written yet"},
    {"cohere2_vision", kVlmTower},
    {"cpmant", "CPM-Ant's segment and position buckets"},
    {"ctrl", "sinusoidal positions and control codes; its key mapping is not written yet"},
    {"cwm", "its sliding and global layer pattern; its key mapping is not written yet"},
    {"dbrx", "fused Wqkv with clip_qkv and its expert layout (ffn_config); its key mapping is not written yet"},
    {"deepseek_vl", kVlmTower},
    {"deepseek_vl_hybrid", kVlmTower},
    {"diffllama", "differential attention (two softmax maps per head, lambda parameters)"},
    {"doge", "dynamic mask attention and its cross-domain experts"},
    {"dots1", "its mixture of experts with dense-first layers; its key mapping is not written yet"},
    {"emu3", "its VQ image tokenizer (vq_config)"},
    {"evolla", "the protein encoder beside its language model"},
    {"exaone4", "its hybrid sliding pattern and post-norms; its key mapping is not written yet"},
    {"falcon_mamba", "Mamba-1 layers without attention under FalconMamba's keys; its key mapping is not written yet"},
    {"flex_olmo", "its expert layout; its key mapping is not written yet"},
    {"fuyu", "image patches projected into Persimmon's blocks"},
    {"git", "the CLIP image encoder of GIT"},
    {"glm", "fused gate_up with partial rotary; its key mapping is not written yet"},
    {"glm4", "its post-attention and post-MLP norms; its key mapping is not written yet"},
    {"glm46v", kVlmTower},
    {"glm4v", kVlmTower},
    {"glm4v_moe", kVlmTower},
    {"glm4v_moe_text", "GLM-4.5V's language model; its key mapping is not written yet"},
    {"glm4v_text", "GLM-4.1V's language model; its key mapping is not written yet"},
    {"got_ocr2", kVlmTower},
    {"gpt_neo", "alternating local and global attention with biases only on out_proj; its key mapping is not written yet"},
    {"gpt_neox_japanese", "its dense-to-sparse MLP; its key mapping is not written yet"},
    {"gptj", "parallel attention and MLP with a biased lm_head and partial rotary; its key mapping is not written yet"},
    {"granite_speech", kAudioTower},
    {"granitemoe", "Granite's MoE with muP multipliers; its key mapping is not written yet"},
    {"granitemoeshared", "Granite's MoE with a shared expert; its key mapping is not written yet"},
    {"granitevision", kVlmTower},
    {"helium", kRowMissing},
    {"idefics", kVlmTower},
    {"idefics2", kVlmTower},
    {"idefics3", kVlmTower},
    {"instructblip", kVlmTower},
    {"instructblipvideo", kVlmTower},
    {"internvl", kVlmTower},
    {"jais2", kRowMissing},
    {"janus", kVlmTower},
    {"jetmoe", "mixture-of-attention-heads with MoE MLPs"},
    {"kosmos-2", kVlmTower},
    {"kosmos-2.5", kVlmTower},
    {"lfm2", "LFM2's short-convolution layers under its keys (layer_types conv); its key mapping is not written yet"},
    {"lfm2_moe", "LFM2's short-convolution layers and experts; its key mapping is not written yet"},
    {"lfm2_vl", kVlmTower},
    {"llava", kVlmTower},
    {"llava_next", kVlmTower},
    {"llava_next_video", kVlmTower},
    {"llava_onevision", kVlmTower},
    {"longcat_flash", "zero-computation experts and two attention blocks per layer"},
    {"mamba", "Mamba-1 layers without attention; its key mapping is not written yet"},
    {"mamba2", "Mamba-2 layers without attention; its key mapping is not written yet"},
    {"mllama", "cross-attention layers to the vision tower"},
    {"modernbert-decoder", "ModernBERT's alternating local and global layers in a decoder"},
    {"mpt", "ALiBi with fused Wqkv and no biases; its key mapping is not written yet"},
    {"nanochat", kRowMissing},
    {"nemotron", "squared-ReLU MLP without a gate and LayerNorm1P; its key mapping is not written yet"},
    {"olmo", "non-parametric LayerNorm; its key mapping is not written yet"},
    {"olmoe", "its mixture of experts with q/k norms; its key mapping is not written yet"},
    {"openai-gpt", "GPT-1's post-norm blocks; its key mapping is not written yet"},
    {"ovis2", kVlmTower},
    {"paligemma", kVlmTower},
    {"perception_lm", kVlmTower},
    {"persimmon", "partial rotary with q/k LayerNorms and a squared-ReLU MLP; its key mapping is not written yet"},
    {"phi", "parallel attention and MLP with partial rotary and biases; its key mapping is not written yet"},
    {"phi4_multimodal", "the vision and audio towers and their LoRA adapters"},
    {"phimoe", "its mixture of experts with LayerNorm; its key mapping is not written yet"},
    {"qwen2_5_omni", "the thinker-talker pair and its audio and vision towers"},
    {"qwen2_audio", kAudioTower},
    {"qwen3_omni_moe", "the thinker-talker pair and its audio and vision towers"},
    {"recurrent_gemma", "RG-LRU recurrent blocks beside local attention"},
    {"reformer", "LSH and local attention with reversible layers and axial positions"},
    {"rwkv", "RWKV's time-mix and channel-mix blocks"},
    {"shieldgemma2", "a Gemma 3 classifier with its vision tower"},
    {"smolvlm", kVlmTower},
    {"stablelm", "partial rotary with LayerNorm and optional per-head q/k norms; its key mapping is not written yet"},
    {"vaultgemma", kRowMissing},
    {"video_llama_3", kVlmTower},
    {"video_llava", kVlmTower},
    {"vipllava", kVlmTower},
    {"voxtral", kAudioTower},
    {"xglm", "sinusoidal positions with LayerNorm blocks; its key mapping is not written yet"},
    {"xlstm", "mLSTM blocks"},
    {"zamba", "Mamba-1 layers with one shared attention block; its key mapping is not written yet"},
    {"zamba2", "Mamba-2 layers with shared attention blocks and their LoRA adapters"},
};

// Encoders, encoder-decoders, and vision, audio, speech, video and time-series models.
constexpr const char *kNotDecoder[] = {
    "aimv2", "aimv2_vision_model", "albert", "align", "altclip", "audio-spectrogram-transformer",
    "audioflamingo3_encoder", "autoformer", "bark", "bart", "beit", "bert-generation", "big_bird",
    "bigbird_pegasus", "bit", "blenderbot", "blenderbot-small", "blip", "blip_2_qformer", "bridgetower", "bros",
    "camembert", "canine", "chinese_clip", "chinese_clip_vision_model", "clap", "clip", "clip_text_model",
    "clip_vision_model", "clipseg", "clvp", "colpali", "colqwen2", "conditional_detr", "convbert", "convnext",
    "convnextv2", "csm", "cvt", "d_fine", "dab-detr", "dac", "data2vec-audio", "data2vec-text",
    "data2vec-vision", "deberta", "deberta-v2", "decision_transformer", "deformable_detr", "deit",
    "depth_anything", "depth_pro", "detr", "dia", "dinat", "dinov2", "dinov2_with_registers", "dinov3_convnext",
    "dinov3_vit", "distilbert", "donut-swin", "dpr", "dpt", "edgetam", "edgetam_video", "edgetam_vision_model",
    "efficientloftr", "efficientnet", "electra", "encodec", "encoder-decoder", "eomt", "ernie", "esm",
    "fastspeech2_conformer", "fastspeech2_conformer_with_hifigan", "flaubert", "flava", "florence2", "fnet",
    "focalnet", "fsmt", "funnel", "gemma3n_audio", "gemma3n_vision", "glm4v_moe_vision", "glm4v_vision", "glpn",
    "grounding-dino", "groupvit", "hgnet_v2", "hiera", "hubert", "ibert", "idefics3_vision", "ijepa", "imagegpt",
    "informer", "internvl_vision", "kyutai_speech_to_text", "layoutlm", "layoutlmv2", "layoutlmv3", "layoutxlm",
    "led", "levit", "lightglue", "lilt", "longformer", "longt5", "luke", "lxmert", "m2m_100", "marian",
    "markuplm", "mask2former", "maskformer", "maskformer-swin", "mbart", "megatron-bert", "metaclip_2",
    "mgp-str", "mimi", "mlcd", "mm-grounding-dino", "mobilebert", "mobilenet_v1", "mobilenet_v2", "mobilevit",
    "mobilevitv2", "modernbert", "moonshine", "moshi", "mpnet", "mra", "mt5", "musicgen", "musicgen_melody",
    "mvp", "nllb-moe", "nougat", "nystromformer", "omdet-turbo", "oneformer", "owlv2", "owlvit",
    "parakeet_ctc", "parakeet_encoder", "patchtsmixer", "patchtst", "pegasus", "pegasus_x", "perceiver",
    "pix2struct", "pixtral", "plbart", "poolformer", "pop2piano", "prompt_depth_anything", "prophetnet", "pvt",
    "pvt_v2", "qwen2_audio_encoder", "rag", "regnet", "rembert", "resnet", "roberta", "roberta-prelayernorm",
    "roc_bert", "roformer", "rt_detr", "rt_detr_resnet", "rt_detr_v2", "sam", "sam2", "sam2_hiera_det_model",
    "sam2_video", "sam2_vision_model", "sam3", "sam3_tracker", "sam3_tracker_video", "sam3_video",
    "sam3_vision_model", "sam3_vit_model", "sam_hq", "sam_hq_vision_model", "sam_vision_model", "seamless_m4t",
    "seamless_m4t_v2", "segformer", "seggpt", "sew", "sew-d", "siglip", "siglip2", "siglip2_vision_model",
    "siglip_vision_model", "smolvlm_vision", "speech-encoder-decoder", "speech_to_text", "speecht5", "splinter",
    "squeezebert", "superglue", "superpoint", "swiftformer", "swin", "swin2sr", "swinv2", "switch_transformers",
    "t5", "t5gemma", "t5gemma2", "table-transformer", "tapas", "textnet", "time_series_transformer", "timesfm",
    "timesformer", "timm_backbone", "timm_wrapper", "trocr", "tvp", "udop", "umt5", "unispeech",
    "unispeech-sat", "univnet", "upernet", "video_llama_3_vision", "videomae", "vilt",
    "vision-encoder-decoder", "vision-text-dual-encoder", "visual_bert", "vit", "vit_mae", "vit_msn", "vitdet",
    "vitmatte", "vitpose", "vitpose_backbone", "vits", "vivit", "vjepa2", "voxtral_encoder", "wav2vec2",
    "wav2vec2-bert", "wav2vec2-conformer", "wavlm", "whisper", "xclip", "xcodec", "xlm", "xlm-roberta",
    "xlm-roberta-xl", "xlnet", "xmod", "yolos", "yoso", "zoedepth",
};

} // namespace

const char *notModelledReason(const std::string &type)
{
    for (const auto &[name, what] : kNotModelled)
        if (type == name)
            return what;
    return nullptr;
}

bool notDecoderLm(const std::string &type)
{
    for (const char *name : kNotDecoder)
        if (type == name)
            return true;
    return false;
}

} // namespace headroom::hf
