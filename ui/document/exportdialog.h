// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "chart/chartexport.h"

#include <QDialog>
#include <functional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace headroom {

/// A size an export is often wanted at.
struct ExportPreset
{
    QString name;
    ChartExportOptions options; ///< the theme is left to the user
};
/// 16:9 slide, 4:3 slide, a paper column at 300 dpi, a square social card.
const std::vector<ExportPreset> &exportPresets();

/// Size, scale (PNG only) and theme of a chart export, from a preset or typed, with a live
/// preview. The last choice is remembered.
class ExportDialog : public QDialog
{
    Q_OBJECT
public:
    /// Draws the chart for the preview at `size` logical pixels and `scale`, in `dark` or not.
    using Preview = std::function<QImage(QSize size, double scale, bool dark)>;

    ExportDialog(ExportFormat format, const ChartExportOptions &options, Preview preview = {},
                 QWidget *parent = nullptr);

    ChartExportOptions options() const;
    QComboBox *presets() const { return m_preset; }
    QLabel *preview() const { return m_preview; }

    /// The options last chosen (or the defaults: 16:9 at scale 2, light).
    static ChartExportOptions remembered();
    /// Keeps `options` for next time.
    static void remember(const ChartExportOptions &options);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void updatePreview();
    void selectPresetFor(const ChartExportOptions &options);

    QComboBox *m_preset;
    QSpinBox *m_width;
    QSpinBox *m_height;
    QDoubleSpinBox *m_scale;
    QCheckBox *m_dark;
    QLabel *m_preview;
    QLabel *m_pixels;
    Preview m_render;
};

} // namespace headroom
