//===- Diagnostics.cpp - MLIR diagnostics in protoc's format --------------===//
#include "Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

#include <string>

using namespace mlir;

/// `file.proto:LINE:COL`, where protoc's messages start.
static void printLocation(llvm::raw_ostream &os, Location loc) {
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    os << fileLoc.getFilename().getValue() << ':' << fileLoc.getLine() << ':'
       << fileLoc.getColumn();
  else
    os << loc;
}

pbc::ProtocDiagnosticHandler::ProtocDiagnosticHandler(MLIRContext *context,
                                                      llvm::raw_ostream &os,
                                                      llvm::StringRef prefix)
    : ScopedDiagnosticHandler(context) {
  setHandler([&os, prefix = prefix.str()](Diagnostic &diag) {
    printLocation(os, diag.getLocation());
    os << ": " << prefix << diag << '\n';
    for (Diagnostic &note : diag.getNotes()) {
      printLocation(os, note.getLocation());
      os << ": note: " << note << '\n';
    }
    os.flush();
    return success();
  });
}
