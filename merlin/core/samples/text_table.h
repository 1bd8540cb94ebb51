#pragma once
/// The `.csv` and `.tab` readers behind open_sample_table().
///
/// Like Merlin, there is no header row: every non-blank line is a sample (Merlin reads the
/// file with np.loadtxt, so a header line would become sample 0; name columns with
/// `merlin.samples.column_labels` instead). Blank (whitespace-only) lines are skipped
/// anywhere, and line numbers in errors count them.
///
/// `.csv`: cells split on ',' and trimmed of surrounding whitespace; an empty cell is "".
/// A cell may be double-quoted to hold commas ("a,b"), with "" for a literal quote; the quotes
/// are not part of the value. A quoted cell cannot span lines, and nothing but whitespace may
/// follow its closing quote. A quote inside an unquoted cell is literal. (Merlin's np.loadtxt
/// has no quoting at all: it would split "a,b" into two cells.)
///
/// `.tab`: cells split on runs of whitespace (spaces or tabs), as np.loadtxt does by default.
///
/// A trailing '\r' (CRLF files) is ignored, and so is a UTF-8 byte-order mark at the start of
/// the file. Every row must have as many cells as the first.
#include <memory>
#include <string>

#include "merlin/core/samples/mapped_file.h"
#include "merlin/core/samples/sample_table.h"
#include "merlin/core/util/result.h"

namespace merlin::samples {

enum class TextFormat { kCsv, kTab };

/// Memory-maps `path` and indexes every 64th line start in one pass (1/8 byte per row), checking
/// every row's cell count. Errors (kBadInput): `path:LINE: row has 3 columns, expected 2`,
/// `path:LINE: unterminated quote`, `path: no samples` (empty or blank file), I/O errors.
Result<std::unique_ptr<SampleTable>> open_text_table(const std::string& path, TextFormat format);

/// The same reader on a file already in hand (open_text_table maps it and calls this; the fuzz
/// targets hand it MappedFile::copy_of). Messages name `file.path()`.
Result<std::unique_ptr<SampleTable>> read_text_table(MappedFile file, TextFormat format);

}  // namespace merlin::samples
