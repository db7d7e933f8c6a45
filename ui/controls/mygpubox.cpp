// SPDX-License-Identifier: GPL-3.0-or-later
#include "controls/mygpubox.h"

#include "controls/usergpus.h"
#include "displaytext.h"
#include "document/preferences.h"
#include "document/scenariomodel.h"
#include "estimate/verdict.h"
#include "io/inputpolicy.h"
#include "scenario/units.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QCompleter>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace headroom {

namespace {

/// The catalog GPU the user chose last ("h100-80gb"); empty on a fresh settings folder.
const Preference<QString> myGpuPref{"gpus/mine", {}, prefs::shortText};

const QString kCatalogTag = QStringLiteral("gpu:");
const QString kUserTag = QStringLiteral("user:");

/// Letters and digits only, lower case: "H100 80GB" and "h100-80gb" search alike.
QString searchKey(const QString &text)
{
    QString key;
    for (const QChar c : text)
        if (c.isLetterOrNumber())
            key += c.toLower();
    return key;
}

/// Typed text for a message: in double quotes, cut at 40 characters, control characters escaped.
QString quoted(const QString &text)
{
    return QString::fromStdString(quotedText(text.toStdString()));
}

} // namespace

MyGpuBox::MyGpuBox(ScenarioModel *model, QWidget *parent)
    : QGroupBox(tr("My GPU"), parent), m_model(model), m_combo(new QComboBox(this)), m_note(new QLabel(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setSpacing(6);
    m_combo->setEditable(true);
    m_combo->setInsertPolicy(QComboBox::NoInsert);
    m_combo->setAccessibleName(tr("My GPU"));
    m_combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_combo->setMinimumContentsLength(14);
    m_combo->lineEdit()->setPlaceholderText(tr("search a GPU, or type 24 GiB"));
    m_combo->setToolTip(tr("The GPU you have: the status bar, the verdicts, Solve and the serving engine's "
                           "budget are about it. Type to search, or type a size such as 24 GiB for a GPU "
                           "that is not in the list."));
    m_combo->completer()->setFilterMode(Qt::MatchContains);
    m_combo->completer()->setCompletionMode(QCompleter::PopupCompletion);
    m_combo->completer()->setCaseSensitivity(Qt::CaseInsensitive);
    connect(m_combo, &QComboBox::activated, this, [this](int index) { choose(m_combo->itemText(index)); });
    // After the key's own handling: the completer's popup (open on "24 GiB", which "RTX 3090 ·
    // 24 GiB" holds) must not see the list rebuilt under it, or it completes to another row.
    connect(m_combo->lineEdit(), &QLineEdit::returnPressed, this, [this] {
        const QString typed = m_combo->currentText();
        QMetaObject::invokeMethod(this, [this, typed] {
            if (QAbstractItemView *popup = m_combo->completer()->popup())
                popup->hide();
            choose(typed);
        }, Qt::QueuedConnection);
    });
    layout->addWidget(m_combo);
    m_note->setWordWrap(true);
    m_note->setAccessibleName(tr("My GPU note"));
    m_note->hide();
    layout->addWidget(m_note);
    connect(m_model, &ScenarioModel::changed, this, &MyGpuBox::refresh);
    refresh();
}

void MyGpuBox::fill()
{
    QStringList texts, tags;
    for (const Gpu &gpu : m_model->catalog().gpus) {
        texts << gpuLabel(QString::fromStdString(gpu.name), gpu.capacityBytes(), m_model->unit());
        tags << kCatalogTag + QString::fromStdString(gpu.id);
    }
    // A size GPU the scenario names ("24gib"), after the catalog's.
    for (const std::string &id : m_model->scenario().gpus)
        if (const Gpu *gpu = m_model->catalog().findGpu(id);
            gpu && std::none_of(m_model->catalog().gpus.begin(), m_model->catalog().gpus.end(),
                                [&](const Gpu &listed) { return listed.id == id; })) {
            texts << gpuLabel(QString::fromStdString(gpu->name), gpu->capacityBytes(), m_model->unit());
            tags << kCatalogTag + QString::fromStdString(id);
        }
    for (const UserGpu &gpu : m_model->userGpus()) {
        texts << tr("%1 (mine)").arg(gpuLabel(gpu.name, gpu.bytes, m_model->unit()));
        tags << kUserTag + gpu.name;
    }
    bool same = texts.size() == m_combo->count();
    for (int i = 0; same && i < texts.size(); ++i)
        same = m_combo->itemText(i) == texts[i] && m_combo->itemData(i).toString() == tags[i];
    if (same)
        return;
    const QSignalBlocker block(m_combo);
    m_combo->clear();
    for (int i = 0; i < texts.size(); ++i)
        m_combo->addItem(texts[i], tags[i]);
}

void MyGpuBox::refresh()
{
    fill();
    const QSignalBlocker block(m_combo);
    if (m_combo->lineEdit()->hasFocus())
        return; // the user is typing: the text is theirs
    const Scenario &s = m_model->scenario();
    if (!s.targetGpu.empty()) {
        const int index = m_combo->findData(kCatalogTag + QString::fromStdString(s.targetGpu));
        m_combo->setCurrentIndex(index);
    } else {
        // No GPU of the user's yet: say which GPU the verdicts are about meanwhile.
        m_combo->setCurrentIndex(-1);
        m_combo->lineEdit()->clear();
        const Gpu *largest = targetGpu(s);
        m_combo->lineEdit()->setPlaceholderText(
            largest ? tr("largest ticked, %1: search, or type 24 GiB").arg(shortGpuName(QString::fromStdString(largest->name)))
                    : tr("search a GPU, or type 24 GiB"));
    }
}

bool MyGpuBox::choose(const QString &typed)
{
    const QString text = typed.trimmed();
    const auto say = [this](const QString &message) {
        m_note->setText(message);
        m_note->setVisible(!message.isEmpty());
    };
    if (text.isEmpty())
        return false;
    static const QRegularExpression number(QStringLiteral("^\\d+(?:\\.\\d*)?\\s*(?:gib|gb|g)?$"),
                                           QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression bare(QStringLiteral("^\\d+(?:\\.\\d*)?$"));
    // A size with its unit is a size ("24 GiB", though "RTX 3090 · 24 GiB" holds it too).
    const bool looksLikeSize = number.match(text).hasMatch(), isBare = bare.match(text).hasMatch();
    // A GPU of the list: the exact text, else the one GPU whose name or id holds what was typed.
    int index = m_combo->findText(text, Qt::MatchFixedString);
    std::vector<int> hits;
    if (looksLikeSize && !isBare)
        index = -1;
    else if (index < 0) {
        const QString key = searchKey(text);
        for (int i = 0; i < m_combo->count(); ++i)
            if (searchKey(m_combo->itemText(i)).contains(key) || searchKey(m_combo->itemData(i).toString()).contains(key))
                hits.push_back(i);
        if (hits.size() == 1)
            index = hits.front();
    }
    // A size ("24 GiB", "20 GB"; a bare "24" in the units shown when it names no GPU): a GPU of
    // that capacity in the scenario's own `gpus` ("24gib"), so a saved file and the command line
    // read it alike.
    if (index < 0 && looksLikeSize && (!isBare || hits.empty())) {
        const auto capacity = parseCapacity(text.toStdString(), m_model->unit());
        if (!capacity) {
            say(tr("A GPU of %1 is out of range: type 1 to 100,000 GiB or GB, with up to 3 decimals.")
                    .arg(quoted(text)));
            return false;
        }
        return select(capacity->id());
    }
    if (index < 0) {
        say(hits.empty() ? tr("No GPU matches %1: type a size such as 24 GiB.").arg(quoted(text))
                         : tr("%1 GPUs match %2: pick one from the list, or type a size such as 24 GiB.")
                               .arg(hits.size())
                               .arg(quoted(text)));
        return false;
    }
    const QString tag = m_combo->itemData(index).toString();
    if (tag.startsWith(kUserTag)) {
        // One of the user's own (Edit > My GPUs): the verdict takes a GPU of its capacity.
        const QString name = tag.mid(kUserTag.size());
        for (const UserGpu &gpu : m_model->userGpus())
            if (gpu.name == name) {
                TypedCapacity capacity;
                capacity.thousandths = std::uint64_t(std::llround(double(gpu.bytes) / 1073741824.0 * 1000.0));
                if (capacity.thousandths < 1000 || capacity.thousandths > 100000000)
                    break;
                return select(capacity.id());
            }
        say(tr("%1 is out of the range a verdict takes (1 to 100,000 GiB).").arg(quoted(name)));
        return false;
    }
    return select(tag.mid(kCatalogTag.size()).toStdString());
}

bool MyGpuBox::select(const std::string &id)
{
    const Gpu *gpu = m_model->catalog().findGpu(id);
    if (!gpu)
        return false;
    // A fresh settings folder: only this GPU and the next larger one of the catalog.
    const bool fresh = myGpuPref.get().isEmpty();
    std::string larger;
    if (fresh)
        for (const Gpu &other : m_model->catalog().gpus)
            if (other.capacityMiB > gpu->capacityMiB)
                if (const Gpu *best = m_model->catalog().findGpu(larger); !best || other.capacityMiB < best->capacityMiB)
                    larger = other.id;
    m_model->apply(tr("My GPU %1").arg(QString::fromStdString(gpu->name)), [id, fresh, larger](Scenario &s) {
        if (fresh) {
            s.gpus = {id};
            if (!larger.empty())
                s.gpus.push_back(larger);
        } else if (std::find(s.gpus.begin(), s.gpus.end(), id) == s.gpus.end()) {
            if (s.gpus.size() >= 16)
                s.gpus.erase(s.gpus.begin());
            s.gpus.push_back(id);
        }
        s.targetGpu = id;
    });
    myGpuPref.set(QString::fromStdString(id));
    m_note->clear();
    m_note->hide();
    return true;
}

} // namespace headroom
