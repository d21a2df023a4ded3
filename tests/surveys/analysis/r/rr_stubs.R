# Stubs of rr::rrreg and RRreg::RRuni for tests/surveys/analysis/test_export_r_lines.py.
#
# LIMITATION: R's rr and RRreg packages are not installable here (no CRAN access; Debian has no
# r-cran-rr / r-cran-rrreg), so the export metadata's R lines are NOT run against the real
# packages. They are parsed by R (parse(text = ...)) and evaluated against these stubs, which
# have the packages' signatures (rr 1.4.2, RRreg 0.7.5) and evaluate their arguments the way
# the packages do (RRuni: response and group inside `data`, as eval(substitute(x), data)), then
# check types, ranges, and that every column named exists in the data frame read from the
# export. A wrong probability order or a wrong model name for the real package is caught only
# as far as these checks go.
stubs <- new.env()

fail <- function(...) stop(paste0(...), call. = FALSE)
check_probabilities <- function(p, n, what) {
  if (!is.numeric(p) || length(p) != n || any(is.na(p)) || any(p < 0 | p > 1)) {
    fail(what, ": ", n, " probabilities in [0, 1] expected, got ", deparse(p))
  }
}
check_binary <- function(y, data, what) {
  if (!is.numeric(y) || length(y) != nrow(data)) fail(what, ": not a numeric column of data")
  if (!all(y[!is.na(y)] %in% c(0, 1))) fail(what, ": not 1/0")
}

stubs$rrreg <- function(formula, p, p0, p1, q, design, data, start = NULL, h = NULL,
                        group = NULL, matrixMethod = "efficient", maxIter = 10000,
                        verbose = FALSE, optim = FALSE, em.converge = 10^(-8),
                        glmMaxIter = 10000, solve.tolerance = .Machine$double.eps) {
  if (!inherits(formula, "formula")) fail("rrreg: formula is not a formula")
  if (!is.data.frame(data)) fail("rrreg: data is not a data frame")
  absent <- setdiff(all.vars(formula), names(data))
  if (length(absent)) fail("rrreg: no column ", paste(absent, collapse = ", "), " in data")
  check_binary(model.response(model.frame(formula, data)), data, "rrreg response")
  design <- match.arg(design, c("forced-known", "mirrored", "disguised", "unrelated-known"))
  switch(design,
    "forced-known" = {
      check_probabilities(c(p, p0, p1), 3, "rrreg p, p0, p1")
      if (abs(p + p0 + p1 - 1) > 1e-9) fail("rrreg: p + p0 + p1 must be 1")
    },
    "mirrored" = check_probabilities(p, 1, "rrreg p"),
    "unrelated-known" = check_probabilities(c(p, q), 2, "rrreg p, q"),
    fail("rrreg: design ", design, " is not one Deniable exports")
  )
  invisible(design)
}

# RRuni's own p lengths (?RRuni): Kuk 2, Crosswise 1, CDMsym 4 (two groups), UQTunknown 2.
stubs$RRuni <- function(response, data, model, p, group = NULL, MLest = TRUE, Kukrep = 1) {
  if (!missing(data)) {  # as RRuni itself: the response (and group) evaluated inside data
    data <- as.data.frame(data)
    response <- eval(substitute(response), data, parent.frame())
    group <- eval(substitute(group), data, parent.frame())
  }
  model <- match.arg(model, c("Warner", "UQTknown", "UQTunknown", "Mangat", "Kuk", "FR",
                              "Crosswise", "CDM", "CDMsym", "SLD", "custom", "mix.norm",
                              "mix.exp", "mix.unknown"))
  check_binary(response, data, paste("RRuni response (", model, ")"))
  sizes <- c(Kuk = 2, Crosswise = 1, CDMsym = 4, UQTunknown = 2)
  if (!(model %in% names(sizes))) fail("RRuni: model ", model, " is not one Deniable exports")
  check_probabilities(p, sizes[[model]], paste("RRuni p (", model, ")"))
  if (model %in% c("CDMsym", "UQTunknown")) {
    if (length(group) != length(response) || !all(group %in% c(1, 2))) {
      fail("RRuni group (", model, "): a 1/2 column of data expected")
    }
  }
  invisible(model)
}

# `pkg::name` inside the evaluated lines resolves to the stub (only rr and RRreg are allowed).
stubs$`::` <- function(pkg, name) {
  pkg <- as.character(substitute(pkg))
  if (!(pkg %in% c("rr", "RRreg"))) fail("unexpected package ", pkg)
  get(as.character(substitute(name)), envir = stubs, inherits = FALSE)
}

run_lines <- function(path) {
  lines <- readLines(path, encoding = "UTF-8")
  for (line in lines) {
    expr <- parse(text = line)  # a syntax error stops here
    if (length(expr) != 1) fail("not one call: ", line)
    env <- new.env(parent = stubs)
    result <- tryCatch(eval(expr[[1]], env), error = function(e) fail(conditionMessage(e), " in: ", line))
    cat("ok\t", line, "\n", sep = "")
  }
}
