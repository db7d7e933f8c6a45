// SPDX-License-Identifier: GPL-3.0-or-later
// Lesson files: their steps, `set` changes and whole scenarios.
#include "fuzzcommon.h"
#include "lesson/lesson.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace headroom;
    fuzz::check([&] {
        const Lesson lesson = parseLesson(fuzz::text(data, size));
        if (lesson.steps.empty() || lesson.steps.size() > limits::kLessonSteps)
            std::abort();
    });
    return 0;
}
