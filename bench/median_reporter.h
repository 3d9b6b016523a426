// The console reporter, also keeping one figure of each benchmark: its
// median over the repetitions, or its only run, for the ratio tables the
// benchmark binaries print after the runs.
#ifndef PBC_BENCH_MEDIAN_REPORTER_H
#define PBC_BENCH_MEDIAN_REPORTER_H

#include <benchmark/benchmark.h>

#include <map>
#include <set>
#include <string>
#include <vector>

class MedianReporter : public benchmark::ConsoleReporter {
public:
  using Figure = double (*)(const Run &);
  explicit MedianReporter(Figure figure) : figure_(figure) {}

  void ReportRuns(const std::vector<Run> &runs) override {
    for (const Run &run : runs) {
      if (run.error_occurred) continue;  // no counters: the console shows the error
      std::string name = run.run_name.function_name;
      bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (median || (run.run_type == Run::RT_Iteration && !medians_.count(name)))
        figures_[name] = figure_(run);
      if (median) medians_.insert(name);
    }
    ConsoleReporter::ReportRuns(runs);
  }

protected:
  std::map<std::string, double> figures_;

private:
  Figure figure_;
  std::set<std::string> medians_;
};

#endif
