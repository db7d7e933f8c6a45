// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "chart/chartexport.h"
#include "lesson/lesson.h"
#include "document/scenariomodel.h"

#include <QByteArray>
#include <QString>

class QPainter;

namespace headroom {

/// How lesson pages are drawn: page size, PNG scale, theme, unit and chart view.
struct LessonExportOptions
{
    ChartExportOptions chart; ///< page size (logical pixels), PNG scale, theme
    Unit unit = Unit::GiB;
    ChartView view = ChartView::Bars;
};

/// The pages of the lesson: one per step, plus the closing comparison when it asks for one.
int lessonPageCount(const Lesson &lesson);
/// The closing comparison: one bar per step (its device peak, consumers stacked), against the
/// last step's GPUs and verdict line.
ChartData lessonComparisonData(const Lesson &lesson, Unit unit, bool dark);
/// Draws step `index` as a page into `rect` (index == steps: the closing comparison): the lesson and step titles, the caption, and the
/// step's chart drawn by BudgetChart below them.
void paintLessonStep(QPainter &painter, const QRectF &rect, const Lesson &lesson, int index,
                     const LessonExportOptions &options);
/// The whole lesson as a multi-page PDF: a handout, one step per page.
QByteArray renderLessonPdf(const Lesson &lesson, const LessonExportOptions &options);
/// Writes the whole lesson (PDF only; `step` < 0) or one step (PNG, SVG or PDF) atomically.
/// Returns an empty string or the error.
QString exportLesson(const QString &path, ExportFormat format, const Lesson &lesson, int step,
                     const LessonExportOptions &options);

/// The file a deck's page `index` is written to: `path` itself for a PDF (the whole deck), else
/// one file per page beside it, numbered from 1 ("deck.png" -> "deck-01.png", "deck-07.png").
QString lessonDeckPagePath(const QString &path, int index, int pageCount);
/// The whole lesson as a deck: one PDF of every page, or one PNG or SVG per page (steps, then the
/// closing comparison). Returns an empty string or the error; `written` lists the files.
QString exportLessonDeck(const QString &path, ExportFormat format, const Lesson &lesson,
                         const LessonExportOptions &options, QStringList *written = nullptr);

} // namespace headroom
