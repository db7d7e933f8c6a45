// SPDX-License-Identifier: GPL-3.0-or-later
#include "classroom/fitsview.h"

#include "document/scenariomodel.h"
#include "estimate/verdict.h"
#include "scenario/units.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

namespace headroom {

namespace {

constexpr int kRowRole = Qt::UserRole + 2;   // the index into rows()
constexpr int kFitsRole = Qt::UserRole + 3;  // the row fits (for "fits only")
constexpr int kIdRole = Qt::UserRole + 4;    // the catalog id (filtered with the name)

/// The model name filter (name or catalog id, any case) and "fits only".
class FitsProxy : public QSortFilterProxyModel
{
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setFitsOnly(bool on)
    {
        m_fitsOnly = on;
        invalidateFilter();
    }
    void setText(const QString &text)
    {
        m_text = text.trimmed();
        invalidateFilter();
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex &parent) const override
    {
        const QModelIndex name = sourceModel()->index(row, FitsView::ModelColumn, parent);
        if (m_fitsOnly && !name.data(kFitsRole).toBool())
            return false;
        return m_text.isEmpty() || name.data().toString().contains(m_text, Qt::CaseInsensitive) ||
               name.data(kIdRole).toString().contains(m_text, Qt::CaseInsensitive);
    }

private:
    bool m_fitsOnly = false;
    QString m_text;
};

QString verdictText(const std::string &verdict)
{
    static const std::pair<const char *, const char *> known[] = {
        {"fits", QT_TRANSLATE_NOOP("headroom::FitsView", "fits")},
        {"fits, experts in CPU RAM", QT_TRANSLATE_NOOP("headroom::FitsView", "fits, experts in CPU RAM")},
        {"partly on the GPU", QT_TRANSLATE_NOOP("headroom::FitsView", "partly on the GPU")},
        {"fewer sequences fit", QT_TRANSLATE_NOOP("headroom::FitsView", "fewer sequences fit")},
        {"does not fit", QT_TRANSLATE_NOOP("headroom::FitsView", "does not fit")},
        {"does not fit the RAM", QT_TRANSLATE_NOOP("headroom::FitsView", "does not fit the RAM")}};
    for (const auto &[key, text] : known)
        if (verdict == key)
            return FitsView::tr(text);
    return QString::fromStdString(verdict);
}

QStandardItem *cell(const QString &text, const QVariant &sortKey, bool right = false)
{
    auto *item = new QStandardItem(text);
    item->setData(sortKey, FitsView::kSortRole);
    item->setEditable(false);
    if (right)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

} // namespace

FitsView::FitsView(ScenarioModel *model, QWidget *parent) : QDialog(parent), m_model(model)
{
    setWindowTitle(tr("What fits my machine"));
    setObjectName(QStringLiteral("fitsView"));
    auto *layout = new QVBoxLayout(this);

    auto *controls = new QHBoxLayout;
    m_gpu = new QComboBox(this);
    m_gpu->setAccessibleName(tr("GPU"));
    m_engine = new QComboBox(this);
    m_engine->setAccessibleName(tr("Engine"));
    m_engine->addItem(tr("llama.cpp"), int(Engine::LlamaCpp));
    m_engine->addItem(tr("vLLM"), int(Engine::Vllm));
    m_engine->addItem(tr("SGLang"), int(Engine::Sglang));
    m_context = new QSpinBox(this);
    m_context->setAccessibleName(tr("Context"));
    m_context->setRange(1, 16 * 1024 * 1024);
    m_context->setValue(4096);
    m_context->setKeyboardTracking(false);
    m_context->setSuffix(tr(" tokens"));
    m_concurrency = new QSpinBox(this);
    m_concurrency->setAccessibleName(tr("Concurrency"));
    m_concurrency->setRange(1, int(kLlamaMaxSeq));
    m_concurrency->setKeyboardTracking(false);
    m_ram = new QDoubleSpinBox(this);
    m_ram->setAccessibleName(tr("RAM"));
    m_ram->setRange(0, 1e6);
    m_ram->setDecimals(0);
    m_ram->setSpecialValueText(tr("not checked"));
    m_ram->setSuffix(tr(" GiB"));
    m_ram->setKeyboardTracking(false);
    auto addField = [&](const QString &label, QWidget *field) {
        auto *text = new QLabel(label, this);
        text->setBuddy(field);
        controls->addWidget(text);
        controls->addWidget(field);
    };
    addField(tr("&GPU:"), m_gpu);
    addField(tr("&Engine:"), m_engine);
    addField(tr("Con&text:"), m_context);
    addField(tr("&Sequences:"), m_concurrency);
    addField(tr("&RAM:"), m_ram);
    controls->addStretch(1);
    layout->addLayout(controls);

    auto *filters = new QHBoxLayout;
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter by model name"));
    m_filter->setAccessibleName(tr("Model name filter"));
    m_filter->setClearButtonEnabled(true);
    auto *filterLabel = new QLabel(tr("&Filter:"), this);
    filterLabel->setBuddy(m_filter);
    m_fitsOnly = new QCheckBox(tr("Fits &only"), this);
    m_status = new QLabel(this);
    m_status->setTextFormat(Qt::PlainText);
    filters->addWidget(filterLabel);
    filters->addWidget(m_filter, 1);
    filters->addWidget(m_fitsOnly);
    filters->addWidget(m_status, 1);
    layout->addLayout(filters);

    m_source = new QStandardItemModel(0, Columns, this);
    m_source->setHorizontalHeaderLabels({tr("Model"), tr("Format"), tr("Weights"), tr("Verdict"), tr("Max context"),
                                         tr("Max sequences"), tr("Experts in RAM"), tr("Peak"), tr("Flags")});
    auto *proxy = new FitsProxy(this);
    proxy->setSourceModel(m_source);
    proxy->setSortRole(kSortRole);
    m_proxy = proxy;
    m_table = new QTableView(this);
    m_table->setAccessibleName(tr("What fits my machine"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder); // catalog order until a header is clicked
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setTabKeyNavigation(false);
    layout->addWidget(m_table, 1);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton *open = buttons->addButton(tr("&Open as scenario"), QDialogButtonBox::ActionRole);
    layout->addWidget(buttons);
    // Enter belongs to the table (it opens the row): no button takes it as the default.
    for (QPushButton *button : buttons->findChildren<QPushButton *>()) {
        button->setAutoDefault(false);
        button->setDefault(false);
    }
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(open, &QPushButton::clicked, this, [this] {
        if (m_table->currentIndex().isValid())
            openRow(m_table->currentIndex().row());
    });
    // Enter or a double-click (activated, by the platform's rule) opens the row.
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex &index) { openRow(index.row()); });

    connect(m_filter, &QLineEdit::textChanged, this, [this, proxy](const QString &text) {
        proxy->setText(text);
        updateStatus();
    });
    connect(m_fitsOnly, &QCheckBox::toggled, this, [this, proxy](bool on) {
        proxy->setFitsOnly(on);
        updateStatus();
    });
    connect(m_engine, &QComboBox::currentIndexChanged, this, [this] {
        const bool llama = Engine(m_engine->currentData().toInt()) == Engine::LlamaCpp;
        m_concurrency->setMaximum(int(llama ? kLlamaMaxSeq : kFitsMaxSeqs));
        refresh();
    });
    connect(m_gpu, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    connect(m_context, &QSpinBox::valueChanged, this, [this] { refresh(); });
    connect(m_concurrency, &QSpinBox::valueChanged, this, [this] { refresh(); });
    connect(m_ram, &QDoubleSpinBox::valueChanged, this, [this] { refresh(); });
    resize(1100, 560);
    fillGpus();
    refresh();
}

void FitsView::showEvent(QShowEvent *event)
{
    // The scenario's GPUs may have changed since the view was last shown.
    const QString current = m_gpu->currentData().toString();
    fillGpus();
    if (m_gpu->currentData().toString() != current)
        refresh();
    QDialog::showEvent(event);
}

void FitsView::fillGpus()
{
    const Scenario &s = m_model->scenario();
    const QString keep = m_gpu->currentData().toString();
    QSignalBlocker block(m_gpu);
    m_gpu->clear();
    QStringList ids;
    if (const Gpu *target = targetGpu(s, m_model->catalog()))
        ids << QString::fromStdString(target->id);
    for (const std::string &id : s.gpus)
        if (m_model->catalog().findGpu(id) && !ids.contains(QString::fromStdString(id)))
            ids << QString::fromStdString(id);
    const int own = int(ids.size());
    for (const Gpu &gpu : m_model->catalog().gpus)
        if (!ids.contains(QString::fromStdString(gpu.id)))
            ids << QString::fromStdString(gpu.id);
    for (int i = 0; i < ids.size(); ++i) {
        const Gpu *gpu = m_model->catalog().findGpu(ids[i].toStdString());
        m_gpu->addItem(QString::fromStdString(gpu->name), ids[i]);
        if (i + 1 == own && own < ids.size())
            m_gpu->insertSeparator(m_gpu->count());
    }
    const int at = m_gpu->findData(keep);
    m_gpu->setCurrentIndex(at >= 0 ? at : 0);
    if (m_ram->value() == 0 && s.host.ramGiB > 0) {
        QSignalBlocker blockRam(m_ram);
        m_ram->setValue(s.host.ramGiB);
    }
}

void FitsView::refresh()
{
    FitsOptions options;
    options.engine = Engine(m_engine->currentData().toInt());
    options.gpu = m_gpu->currentData().toString().toStdString();
    options.context = std::uint32_t(m_context->value());
    options.concurrency = std::uint32_t(m_concurrency->value());
    options.ramGiB = m_ram->value();
    m_rows.clear();
    QString problem;
    try {
        if (!options.gpu.empty())
            m_rows = fitsMatrix(m_model->catalog(), options);
    } catch (const std::exception &error) {
        problem = QString::fromUtf8(error.what());
    }
    const Unit unit = m_model->unit();
    m_source->removeRows(0, m_source->rowCount());
    m_table->setSortingEnabled(false);
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        const FitsRow &row = m_rows[i];
        const ModelPreset *preset = m_model->catalog().findModel(row.model);
        const QString name = preset ? QString::fromStdString(preset->name) : QString::fromStdString(row.model);
        QString flags;
        for (const std::string &flag : row.flags)
            flags += (flags.isEmpty() ? QString() : QStringLiteral(" ")) + QString::fromStdString(flag);
        auto *model = cell(name, name.toLower());
        model->setData(int(i), kRowRole);
        model->setData(row.fits, kFitsRole);
        model->setData(QString::fromStdString(row.model), kIdRole);
        model->setToolTip(QString::fromStdString(row.model));
        const QString format = QString::fromStdString(row.format.name) +
                               (row.format.checkpoint ? tr(" (checkpoint)") : QString());
        const bool none = row.verdict.rfind("not modelled", 0) == 0;
        const QString concurrency = QString::number(row.maxConcurrency) +
                                    (row.maxConcurrency >= row.concurrencyCap ? QStringLiteral("+") : QString());
        QList<QStandardItem *> items{
            model,
            cell(format, format),
            cell(none ? QString() : QString::fromStdString(formatBytes(row.weightBytes, unit)), qulonglong(row.weightBytes), true),
            cell(verdictText(row.verdict), verdictText(row.verdict)),
            cell(QString::number(row.maxContext), row.maxContext, true),
            cell(concurrency, row.maxConcurrency, true),
            cell(row.engine == Engine::LlamaCpp ? QString::number(row.nCpuMoe) : tr("none"), row.nCpuMoe, true),
            cell(none ? QString() : QString::fromStdString(formatBytes(row.peakBytes, unit)), qulonglong(row.peakBytes), true),
            cell(flags, flags)};
        items[Verdict]->setToolTip(items[Verdict]->text());
        items[Flags]->setToolTip(flags);
        if (!row.fits)
            items[Verdict]->setForeground(palette().color(QPalette::Disabled, QPalette::WindowText));
        m_source->appendRow(items);
    }
    m_table->setSortingEnabled(true);
    m_table->resizeColumnsToContents();
    if (!problem.isEmpty())
        m_status->setText(problem);
    else
        updateStatus();
}

void FitsView::updateStatus()
{
    std::size_t fit = 0;
    for (const FitsRow &row : m_rows)
        fit += row.fits ? 1 : 0;
    m_status->setText(tr("%1 of %2 rows shown; %3 run on this machine (layers or experts in CPU RAM count)").arg(m_proxy->rowCount()).arg(m_rows.size()).arg(fit));
}

const FitsRow *FitsView::rowAt(int proxyRow) const
{
    const QModelIndex index = m_proxy->index(proxyRow, ModelColumn);
    if (!index.isValid())
        return nullptr;
    const int i = m_proxy->mapToSource(index).data(kRowRole).toInt();
    return i >= 0 && std::size_t(i) < m_rows.size() ? &m_rows[std::size_t(i)] : nullptr;
}

void FitsView::openRow(int proxyRow)
{
    const FitsRow *row = rowAt(proxyRow);
    if (!row || row->verdict.rfind("not modelled", 0) == 0)
        return;
    Scenario s = row->scenario;
    if (const ModelPreset *preset = m_model->catalog().findModel(row->model))
        s.name = preset->name + " " + row->format.name;
    m_model->setScenario(s, tr("Open %1 from What fits my machine").arg(QString::fromStdString(s.name)));
    emit opened();
}

} // namespace headroom
