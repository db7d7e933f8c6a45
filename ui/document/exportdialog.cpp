// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/exportdialog.h"

#include "document/preferences.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QPixmap>
#include <QSignalBlocker>
#include <QSpinBox>

namespace headroom {

const std::vector<ExportPreset> &exportPresets()
{
    static const std::vector<ExportPreset> presets{
        {ExportDialog::tr("16:9 slide (1920 x 1080)"), {QSize(1920, 1080), 1, false}},
        {ExportDialog::tr("4:3 slide (1440 x 1080)"), {QSize(1440, 1080), 1, false}},
        // 3.5 inches at 300 dpi is 1050 pixels: a paper's single column.
        {ExportDialog::tr("Paper column (3.5 in at 300 dpi)"), {QSize(420, 315), 2.5, false}},
        {ExportDialog::tr("Square social card (1080 x 1080)"), {QSize(1080, 1080), 1, false}},
    };
    return presets;
}

ExportDialog::ExportDialog(ExportFormat format, const ChartExportOptions &options, Preview preview, QWidget *parent)
    : QDialog(parent), m_preset(new QComboBox(this)), m_width(new QSpinBox(this)), m_height(new QSpinBox(this)),
      m_scale(new QDoubleSpinBox(this)), m_dark(new QCheckBox(tr("&Dark theme"), this)),
      m_preview(new QLabel(this)), m_pixels(new QLabel(this)), m_render(std::move(preview))
{
    setWindowTitle(tr("Export chart"));
    for (const ExportPreset &preset : exportPresets())
        m_preset->addItem(preset.name);
    m_preset->addItem(tr("Custom size"));
    m_preset->setAccessibleName(tr("Preset"));
    for (QSpinBox *spin : {m_width, m_height}) {
        spin->setRange(16, 16384);
        spin->setSuffix(tr(" px"));
    }
    m_width->setValue(options.size.width());
    m_width->setAccessibleName(tr("Width"));
    m_height->setValue(options.size.height());
    m_height->setAccessibleName(tr("Height"));
    m_scale->setRange(0.25, 8);
    m_scale->setDecimals(2);
    m_scale->setSingleStep(0.5);
    m_scale->setValue(options.scale);
    m_scale->setAccessibleName(tr("Scale"));
    m_scale->setEnabled(format == ExportFormat::Png);
    m_dark->setChecked(options.dark);
    m_preview->setAccessibleName(tr("Preview"));
    m_preview->setMinimumSize(360, 240);
    m_preview->setAlignment(Qt::AlignCenter);
    m_pixels->setAccessibleName(tr("Image size"));
    selectPresetFor(options);

    auto *form = new QFormLayout;
    form->addRow(tr("&Preset"), m_preset);
    form->addRow(tr("&Width (logical pixels)"), m_width);
    form->addRow(tr("&Height (logical pixels)"), m_height);
    form->addRow(tr("&Scale (PNG pixels per logical pixel)"), m_scale);
    form->addRow(QString(), m_dark);
    form->addRow(QString(), m_pixels);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
    auto *layout = new QHBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_preview, 1);

    connect(m_preset, &QComboBox::activated, this, [this](int index) {
        if (index < 0 || index >= int(exportPresets().size()))
            return;
        const ChartExportOptions &preset = exportPresets()[std::size_t(index)].options;
        const QSignalBlocker blockWidth(m_width), blockHeight(m_height), blockScale(m_scale);
        m_width->setValue(preset.size.width());
        m_height->setValue(preset.size.height());
        if (preset.scale != 1) // a page size keeps the chosen resolution; a print preset sets its own
            m_scale->setValue(preset.scale);
        updatePreview();
    });
    for (QSpinBox *spin : {m_width, m_height})
        connect(spin, &QSpinBox::valueChanged, this, [this] {
            selectPresetFor(this->options());
            updatePreview();
        });
    connect(m_scale, &QDoubleSpinBox::valueChanged, this, [this] {
        selectPresetFor(this->options());
        updatePreview();
    });
    connect(m_dark, &QCheckBox::toggled, this, &ExportDialog::updatePreview);
    updatePreview();
}

void ExportDialog::selectPresetFor(const ChartExportOptions &options)
{
    const QSignalBlocker block(m_preset);
    for (int i = 0; i < int(exportPresets().size()); ++i) {
        const ChartExportOptions &preset = exportPresets()[std::size_t(i)].options;
        // A slide or a card is a page size, at any resolution (1920 x 1080 at scale 2 is still the
        // 16:9 slide); a preset with its own scale (the paper column's 300 dpi) also needs that.
        const bool anyScale = preset.scale == 1 || !m_scale->isEnabled();
        if (preset.size == options.size && (anyScale || preset.scale == options.scale)) {
            m_preset->setCurrentIndex(i);
            return;
        }
    }
    m_preset->setCurrentIndex(m_preset->count() - 1);
}

ChartExportOptions ExportDialog::options() const
{
    return {QSize(m_width->value(), m_height->value()), m_scale->value(), m_dark->isChecked()};
}

void ExportDialog::updatePreview()
{
    const ChartExportOptions chosen = options();
    const QSize pixels(qRound(chosen.size.width() * chosen.scale), qRound(chosen.size.height() * chosen.scale));
    m_pixels->setText(m_scale->isEnabled() ? tr("%1 x %2 pixels").arg(pixels.width()).arg(pixels.height())
                                           : tr("a vector page of %1 x %2").arg(chosen.size.width()).arg(chosen.size.height()));
    if (!m_render)
        return;
    // Laid out at the export's size (same text and placement), drawn small.
    // The whole page in the label's box (before it is shown, its minimum: an unshown widget's size
    // is a default that would crop the page), at the page's own aspect.
    const QSize box = m_preview->isVisible() ? m_preview->contentsRect().size().expandedTo(QSize(16, 16))
                                             : m_preview->minimumSize();
    const double fit = std::min(double(box.width()) / chosen.size.width(), double(box.height()) / chosen.size.height());
    m_preview->setPixmap(QPixmap::fromImage(m_render(chosen.size, std::max(0.05, fit), chosen.dark)));
}

void ExportDialog::resizeEvent(QResizeEvent *event)
{
    QDialog::resizeEvent(event);
    updatePreview();
}

ChartExportOptions ExportDialog::remembered()
{
    ChartExportOptions options;
    const QSize size = prefs::exportSize.get();
    if (size.width() >= 16 && size.height() >= 16 && size.width() <= 16384 && size.height() <= 16384)
        options.size = size;
    const double scale = prefs::exportScale.get();
    if (scale >= 0.25 && scale <= 8)
        options.scale = scale;
    options.dark = prefs::exportDark.get();
    return options;
}

void ExportDialog::remember(const ChartExportOptions &options)
{
    prefs::exportSize.set(options.size);
    prefs::exportScale.set(options.scale);
    prefs::exportDark.set(options.dark);
}

} // namespace headroom
