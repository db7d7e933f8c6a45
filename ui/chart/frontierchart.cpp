// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart/frontierchart.h"

#include "chart/budgetchart.h"
#include "chart/chartdata.h"
#include "chart/chartlayout.h"
#include "chart/linechartstyle.h"
#include "displaytext.h"
#include "document/documentio.h"
#include "solve/solvejson.h"

#include <QChart>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <nlohmann/json.hpp>

namespace headroom {

namespace {

/// Okabe-Ito colours for up to eight curves.
QColor curveColor(std::size_t index)
{
    static const QRgb colours[] = {0x0072B2, 0xD55E00, 0x009E73, 0xCC79A7, 0xE69F00, 0x56B4E9, 0x882255, 0x999933};
    return QColor(colours[index % 8]);
}

} // namespace

QString servingLimitText(ServingLimit limit)
{
    switch (limit) {
    case ServingLimit::KvCache: return FrontierChart::tr("the KV cache");
    case ServingLimit::MaxNumSeqs: return FrontierChart::tr("the engine's sequence limit");
    case ServingLimit::MaxModelLen: return FrontierChart::tr("the engine's longest sequence");
    case ServingLimit::Memory: return FrontierChart::tr("the GPU's memory");
    }
    return {};
}

QString frontierCurveName(const FrontierCurve &c)
{
    QString name = shortGpuName(QString::fromStdString(c.gpuName));
    if (c.tensor > 1)
        name += FrontierChart::tr(" x%1 (TP)").arg(c.tensor);
    if (c.allocation == FrontierAllocation::Contiguous)
        name += FrontierChart::tr(", contiguous");
    return name;
}

FrontierChart::FrontierChart(QObject *parent)
    : QObject(parent), m_chart(new QChart), m_axisX(new QLogValueAxis), m_axisY(new QLogValueAxis),
      m_point(new QScatterSeries), m_label(new QGraphicsSimpleTextItem(m_chart))
{
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_axisX->setBase(2);
    m_axisY->setBase(2);
    m_axisX->setTitleText(tr("Tokens per sequence (prompt + output)"));
    m_axisY->setTitleText(tr("Concurrent sequences"));
    m_axisX->setLabelFormat(QStringLiteral("%.0f"));
    m_axisY->setLabelFormat(QStringLiteral("%g"));
    m_chart->addAxis(m_axisX, Qt::AlignBottom);
    m_chart->addAxis(m_axisY, Qt::AlignLeft);
    m_point->setName(tr("Your load"));
    m_point->setMarkerSize(14);
    m_chart->addSeries(m_point);
    m_point->attachAxis(m_axisX);
    m_point->attachAxis(m_axisY);
    m_label->setZValue(20);
    connect(m_chart, &QChart::plotAreaChanged, this, [this] { layoutLabel(); });
    applyTheme();
}

FrontierChart::~FrontierChart()
{
    if (!m_chart->scene())
        delete m_chart;
}

void FrontierChart::setScale(double scale)
{
    m_scale = scale;
    applyTheme();
    layoutLabel();
}

void FrontierChart::applyTheme()
{
    const bool dark = m_data.dark;
    styleLineChart(m_chart, {m_axisX, m_axisY}, dark, m_scale);
    for (std::size_t i = 0; i < m_curves.size(); ++i) {
        QPen pen(curveColor(i));
        pen.setWidthF(2.5 * m_scale);
        if (i < m_data.frontier.curves.size() && m_data.frontier.curves[i].allocation == FrontierAllocation::Contiguous)
            pen.setStyle(Qt::DashLine);
        m_curves[i]->setPen(pen);
    }
    m_point->setColor(chartTextColor(dark));
    m_point->setBorderColor(chartBackground(dark));
    m_point->setMarkerSize(14 * m_scale);
}

void FrontierChart::setData(const FrontierChartData &data)
{
    m_data = data;
    const Frontier &f = data.frontier;
    // Structural change only when the number of curves changes; points are replaced in place.
    while (m_curves.size() > f.curves.size()) {
        m_chart->removeSeries(m_curves.back());
        delete m_curves.back();
        m_curves.pop_back();
    }
    while (m_curves.size() < f.curves.size()) {
        auto *line = new QLineSeries;
        line->setPointsVisible(true);
        m_chart->addSeries(line);
        line->attachAxis(m_axisX);
        line->attachAxis(m_axisY);
        m_curves.push_back(line);
    }
    double maxTokens = 2, maxSequences = 2, minTokens = 1e12;
    for (std::size_t i = 0; i < f.curves.size(); ++i) {
        QList<QPointF> points;
        for (const FrontierPoint &p : f.curves[i].points) {
            if (p.sequences == 0)
                continue; // a log axis has no zero: the curve ends where nothing fits
            points << QPointF(double(p.tokens), double(p.sequences));
            maxSequences = std::max(maxSequences, double(p.sequences));
        }
        for (const FrontierPoint &p : f.curves[i].points) {
            maxTokens = std::max(maxTokens, double(p.tokens));
            minTokens = std::min(minTokens, double(p.tokens));
        }
        if (m_curves[i]->points() != points)
            m_curves[i]->replace(points);
        const QString name = frontierCurveName(f.curves[i]);
        if (m_curves[i]->name() != name)
            m_curves[i]->setName(name);
    }
    const QList<QPointF> point{QPointF(double(std::max<std::uint64_t>(1, f.operatingTokens)),
                                       double(std::max<std::uint64_t>(1, f.operatingSequences)))};
    if (m_point->points() != point)
        m_point->replace(point);
    maxSequences = std::max(maxSequences, double(f.operatingSequences));
    maxTokens = std::max(maxTokens, double(f.operatingTokens));
    m_axisX->setRange(std::max(1.0, std::min(minTokens, double(std::max<std::uint64_t>(1, f.operatingTokens))) / 2), maxTokens * 2);
    m_axisY->setRange(0.5, maxSequences * 2);
    m_chart->setTitle(data.subtitle.isEmpty() ? data.title.toHtmlEscaped() : data.title.toHtmlEscaped() + QStringLiteral("<br><small>") +
                                                                  data.subtitle.toHtmlEscaped() + QStringLiteral("</small>"));
    applyTheme();
    layoutLabel();
}

QString FrontierChart::operatingLabel() const
{
    const Frontier &f = m_data.frontier;
    return tr("%1 x %2 tokens: %3 fit, limited by %4")
        .arg(QString::fromStdString(groupDigits(f.operatingSequences)), QString::fromStdString(groupDigits(f.operatingTokens)),
             QString::fromStdString(groupDigits(f.operatingMaxSequences)), servingLimitText(f.operatingLimit));
}

void FrontierChart::layoutLabel()
{
    QFont font = m_chart->font();
    font.setPointSizeF(9 * m_scale);
    font.setBold(true);
    m_label->setFont(font);
    m_label->setBrush(chartTextColor(m_data.dark));
    m_label->setText(m_data.frontier.curves.empty() ? QString() : operatingLabel());
    const QList<QPointF> points = m_point->points();
    if (points.isEmpty() || m_chart->plotArea().isEmpty())
        return;
    const QPointF at = m_chart->mapToPosition(points.front(), m_point);
    const QRectF box = m_label->boundingRect();
    const QRectF plot = m_chart->plotArea();
    const double x = std::clamp(at.x() + 10 * m_scale, plot.left(), std::max(plot.left(), plot.right() - box.width()));
    const double y = std::clamp(at.y() - box.height() - 6 * m_scale, plot.top(), std::max(plot.top(), plot.bottom() - box.height()));
    m_label->setPos(x, y);
}

FrontierChartData frontierChartData(const Scenario &scenario, const FrontierOptions &options, bool dark)
{
    FrontierChartData data;
    data.dark = dark;
    data.title = FrontierChart::tr("Concurrency x context: %1").arg(modelName(scenario));
    data.subtitle = scenarioSummary(scenario);
    data.frontier = servingFrontier(scenario, options);
    return data;
}

QString exportFrontier(const QString &path, ExportFormat format, FrontierChartData data, const ChartExportOptions &options)
{
    if (format == ExportFormat::Csv)
        return writeFileAtomically(path, QByteArray::fromStdString(frontierToCsv(data.frontier)));
    if (format == ExportFormat::Json)
        return writeFileAtomically(path, QByteArray::fromStdString(frontierToJson(data.frontier).dump(2) + "\n"));
    data.dark = options.dark;
    if (QString error = checkExportOptions(format, options); !error.isEmpty())
        return error;
    QGraphicsScene scene;
    FrontierChart chart;
    scene.addItem(chart.chart());
    scene.setSceneRect(QRectF(QPointF(0, 0), QSizeF(options.size)));
    scene.setBackgroundBrush(chartBackground(data.dark));
    chart.chart()->setGeometry(QRectF(QPointF(0, 0), QSizeF(options.size)));
    chart.setData(data);
    chart.setScale(exportTextScale(options.size));
    settleScene(scene);
    QString error;
    const QByteArray bytes = renderScene(scene, options.size, format, options, data.title, error);
    scene.removeItem(chart.chart());
    return error.isEmpty() ? writeFileAtomically(path, bytes) : error;
}

} // namespace headroom
