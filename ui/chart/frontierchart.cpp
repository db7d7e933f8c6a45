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
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace headroom {

namespace {

/// Okabe-Ito colours for up to eight curves.
QColor curveColor(std::size_t index)
{
    static const QRgb colours[] = {0x0072B2, 0xD55E00, 0x009E73, 0xCC79A7, 0xE69F00, 0x56B4E9, 0x882255, 0x999933};
    return QColor(colours[index % 8]);
}

QString engineName(Engine engine)
{
    switch (engine) {
    case Engine::HfGenerate: return QStringLiteral("Transformers generate()");
    case Engine::Vllm: return QStringLiteral("vLLM");
    case Engine::Sglang: return QStringLiteral("SGLang");
    case Engine::LlamaCpp: return QStringLiteral("llama.cpp");
    case Engine::Trtllm: return QStringLiteral("TensorRT-LLM");
    }
    return {};
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
      m_point(new QScatterSeries), m_label(new QGraphicsSimpleTextItem(m_chart)), m_limit(new QLineSeries),
      m_limitText(new QGraphicsSimpleTextItem(m_chart))
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
    // max_model_len: the longest request the engine takes; the curves stop there.
    m_chart->addSeries(m_limit);
    m_limit->attachAxis(m_axisX);
    m_limit->attachAxis(m_axisY);
    m_limitText->setZValue(20);
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
    QPen limitPen(chartMutedColor(dark));
    limitPen.setWidthF(1.5 * m_scale);
    limitPen.setStyle(Qt::DashDotLine);
    m_limit->setPen(limitPen);
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
        connect(line, &QLineSeries::hovered, this, [this, line](const QPointF &at, bool entered) { hover(line, at, entered); });
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
    // The mark at max_model_len, top to bottom of the plot.
    QList<QPointF> limit;
    if (f.maxModelLen)
        limit = {QPointF(double(f.maxModelLen), 0.5), QPointF(double(f.maxModelLen), maxSequences * 2)};
    if (m_limit->points() != limit)
        m_limit->replace(limit);
    m_limit->setName(limitLabel());
    m_limit->setVisible(f.maxModelLen > 0);
    for (QLegendMarker *marker : m_chart->legend()->markers(m_limit))
        marker->setVisible(f.maxModelLen > 0);
    if (!m_readout.isEmpty()) {
        m_readout.clear();
        emit readoutChanged(m_readout);
    }
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

QString FrontierChart::limitLabel() const
{
    const std::uint64_t length = m_data.frontier.maxModelLen;
    return length ? tr("max_model_len %1").arg(QString::fromStdString(groupDigits(length))) : QString();
}

QString FrontierChart::readout(std::size_t curve, std::size_t point) const
{
    const auto &curves = m_data.frontier.curves;
    if (curve >= curves.size() || point >= curves[curve].points.size())
        return {};
    const FrontierPoint &p = curves[curve].points[point];
    QStringList parts{frontierCurveName(curves[curve]),
                      tr("%1 tokens").arg(QString::fromStdString(groupDigits(p.tokens))),
                      p.sequences == 1 ? tr("1 user") : tr("%1 users").arg(QString::fromStdString(groupDigits(p.sequences)))};
    if (p.kvBytesPerSequence)
        parts << tr("KV %1 per user").arg(bytesText(p.kvBytesPerSequence, m_data.unit));
    if (!m_data.engine.isEmpty())
        parts << m_data.engine;
    parts << tr("limited by %1").arg(servingLimitText(p.limit));
    return parts.join(QStringLiteral(" \u00b7 "));
}

QStringList FrontierChart::pointLabels() const
{
    QStringList labels;
    for (const QGraphicsSimpleTextItem *item : m_pointTexts)
        if (item->isVisible())
            labels << item->text();
    return labels;
}

QList<QRectF> FrontierChart::pointLabelBoxes() const
{
    QList<QRectF> boxes;
    for (const QGraphicsSimpleTextItem *item : m_pointTexts)
        if (item->isVisible())
            boxes << QRectF(item->pos(), item->boundingRect().size());
    return boxes;
}

void FrontierChart::hover(QLineSeries *line, const QPointF &at, bool entered)
{
    QString text;
    const auto found = std::find(m_curves.begin(), m_curves.end(), line);
    const std::size_t curve = std::size_t(found - m_curves.begin());
    if (entered && found != m_curves.end() && curve < m_data.frontier.curves.size()) {
        // The point nearest the pointer along the (log) tokens axis.
        const auto &points = m_data.frontier.curves[curve].points;
        double best = 1e300;
        std::size_t nearest = points.size();
        for (std::size_t i = 0; i < points.size(); ++i)
            if (const double d = std::abs(std::log2(double(std::max<std::uint64_t>(1, points[i].tokens))) -
                                          std::log2(std::max(1.0, at.x())));
                points[i].sequences > 0 && d < best) {
                best = d;
                nearest = i;
            }
        text = readout(curve, nearest);
    }
    if (text != m_readout) {
        m_readout = text;
        emit readoutChanged(m_readout);
    }
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
    // A load that fits is under its curve, which falls to the right: its label goes to its left
    // at its height, under the curve (to its right it crossed the curve and hid the next point's
    // label); a load that does not fit is above the curve: the label goes above and right.
    const bool under = m_data.frontier.operatingSequences <= m_data.frontier.operatingMaxSequences;
    const double wantedX = under ? at.x() - box.width() - 12 * m_scale : at.x() + 10 * m_scale;
    const double x = std::clamp(wantedX, plot.left(), std::max(plot.left(), plot.right() - box.width()));
    const double wanted = under ? at.y() - box.height() / 2 : at.y() - box.height() - 6 * m_scale;
    const double y = std::clamp(wanted, plot.top(), std::max(plot.top(), plot.bottom() - box.height()));
    m_label->setPos(x, y);
    const QRectF operating(QPointF(x, y), box.size());

    // The first curve's concurrency at each length, above its points; one that would meet the
    // label before it or the operating label is left out.
    QFont small = m_chart->font();
    small.setPointSizeF(8 * m_scale);
    const std::vector<FrontierPoint> none;
    const auto &first = m_curves.empty() || m_data.frontier.curves.empty() ? none : m_data.frontier.curves.front().points;
    while (m_pointTexts.size() < first.size()) {
        auto *item = new QGraphicsSimpleTextItem(m_chart);
        item->setZValue(19);
        m_pointTexts.push_back(item);
    }
    QRectF previous;
    for (std::size_t i = 0; i < m_pointTexts.size(); ++i) {
        QGraphicsSimpleTextItem *item = m_pointTexts[i];
        item->setVisible(false);
        if (i >= first.size() || first[i].sequences == 0)
            continue;
        item->setFont(small);
        item->setBrush(curveColor(0));
        item->setText(QString::fromStdString(groupDigits(first[i].sequences)));
        const QPointF p = m_chart->mapToPosition(QPointF(double(first[i].tokens), double(first[i].sequences)), m_curves.front());
        const QRectF r = item->boundingRect();
        // The point on the max_model_len mark has its label to its left, off the dashed line.
        const bool onMark = m_data.frontier.maxModelLen > 0 && first[i].tokens == m_data.frontier.maxModelLen;
        const QRectF where = onMark ? QRectF(QPointF(p.x() - r.width() - 5 * m_scale, p.y() - r.height() - 2 * m_scale), r.size())
                                    : QRectF(QPointF(p.x() - r.width() / 2, p.y() - r.height() - 5 * m_scale), r.size());
        if (!plot.contains(where) || where.intersects(previous) || where.intersects(operating))
            continue;
        item->setPos(where.topLeft());
        item->setVisible(true);
        previous = where;
    }
    // The max_model_len mark's label, at the top of its line.
    m_limitText->setFont(small);
    m_limitText->setBrush(chartMutedColor(m_data.dark));
    m_limitText->setText(limitLabel());
    m_limitText->setVisible(m_data.frontier.maxModelLen > 0);
    if (m_data.frontier.maxModelLen > 0) {
        const double lx = m_chart->mapToPosition(QPointF(double(m_data.frontier.maxModelLen), 1), m_limit).x();
        const QRectF r = m_limitText->boundingRect();
        m_limitText->setPos(std::clamp(lx - r.width() - 4 * m_scale, plot.left(), std::max(plot.left(), plot.right() - r.width())),
                            plot.top() + 2 * m_scale);
    }
}

FrontierChartData frontierChartData(const Scenario &scenario, const FrontierOptions &options, bool dark, Unit unit)
{
    FrontierChartData data;
    data.dark = dark;
    data.unit = unit;
    if (scenario.serving)
        data.engine = engineName(scenario.serving->engine);
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
