// What a folder of tables holds, read from the files' headers: which variant
// families are there, which variants built them, and which files are for
// other rules or cannot be read.  Used by every command that takes a tables
// folder, so that a folder (or one of its variant subfolders) says itself
// what it holds.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "damka/env.hpp"
#include "damka/expected.hpp"
#include "damka/rules.hpp"
#include "damka/table_file.hpp"

namespace damka {

// One family subfolder: <root>/<family>.
struct TableFamilyFolder {
  std::string family;            // "russian", "brazilian" (also Filipino's), ...
  std::filesystem::path folder;  // <root>/<family>
  std::vector<Variant> variants; // the variants named in headers of files for this family's rules
  int files = 0;                 // table files (*.wdl, *.dtw, *.dtc) found
  std::vector<std::string> problems;  // one message per file for other rules or unreadable
  // The first table file whose header could not be read for an I/O error
  // (ErrorCode::Io: "<file>: cannot read the header: Input/output error ..."),
  // or empty.  Also in `problems`.
  std::string io_error;
};

struct TableFolderScan {
  std::filesystem::path root;    // the folder holding the family subfolders (as given to generate -o)
  bool family_given = false;     // the folder given was a family subfolder itself
  std::vector<TableFamilyFolder> families;  // those holding table files, in all_variants() order
  // Family subfolders that could not be listed ("<folder>: Permission denied"):
  // the other families are scanned all the same.
  std::vector<std::string> unreadable;

  // Every variant named by a header, in all_variants() order.
  std::vector<Variant> variants() const;
  // The first family's io_error that is not empty, or empty.
  std::string io_error() const;
  // The family subfolder of these rules, or nullptr.
  const TableFamilyFolder* family_of(const Rules& rules) const;
  // "russian (data/tables/russian), english (data/tables/english)" or "none".
  std::string describe() const;
};

// Scans `dir`: a folder of family subfolders, or one family subfolder (then
// root is its parent).  Opens every table file's header (TableReader::open:
// reads the header and block table, not the blocks).  Fails only when `dir`
// is not a readable directory, or holds table files outside a folder named
// after a family; a family subfolder that cannot be listed is named in
// `unreadable` and the others are scanned.  Every stat, listing and open
// goes through `env`: a folder that cannot be stat'ed or listed is an Io
// error (NotFound when it does not exist).  Thread-safe; cost: one open per
// table file.
Expected<TableFolderScan> scan_table_folder(const std::filesystem::path& dir, Env& env = default_env());

// The one wording for a table built for other rules than those expected:
// "<file>: built for english rules, expected russian (rules fingerprint 0x..., russian's is 0x...)".
std::string foreign_table_message(const std::filesystem::path& file, const TableHeader& h, const Rules& expected);

// The folder holding family subfolders for `dir`: `dir` itself, or its parent
// when `dir` is the rules' family subfolder (named after the family, with no
// subfolder of that name inside).  No error: a missing folder is returned as
// is.  Cost: at most two stats through `env`.  Thread-safe.
std::filesystem::path tables_root(const std::filesystem::path& dir, const Rules& rules, Env& env = default_env());

}  // namespace damka
