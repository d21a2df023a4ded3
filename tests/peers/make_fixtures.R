# Fixtures for tests/peers: simulated report data sets with known parameters, and what R's
# RRreg (Heck & Moshagen; 0.7.6) and, when installed, rr (Blair, Imai & Zhou; 1.4.2) estimate
# from them. Run from the repository root:  Rscript tests/peers/make_fixtures.R
# It rewrites tests/peers/fixtures/*.json (tests/peers/README.md says how to install the peers).
# The Python tests (tests/peers/test_*.py) read these files and need no R.
suppressPackageStartupMessages({
  library(RRreg)
  library(jsonlite)
})
has_rr <- requireNamespace("rr", quietly = TRUE)
out_dir <- file.path("tests", "peers", "fixtures")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)

write_fixture <- function(name, x) {
  x$generated_by <- "tests/peers/make_fixtures.R"
  x$peer_versions <- list(
    R = paste(R.version$major, R.version$minor, sep = "."),
    RRreg = as.character(packageVersion("RRreg")),
    rr = if (has_rr) as.character(packageVersion("rr")) else NULL
  )
  writeLines(
    toJSON(x, auto_unbox = TRUE, digits = NA, null = "null", pretty = FALSE),
    file.path(out_dir, paste0(name, ".json"))
  )
}
se_of <- function(v) unname(sqrt(diag(v)))

# The report of one respondent with trait t (0/1) under a "yes with c*t + d" design.
report_linear <- function(t, c, d) rbinom(length(t), 1, c * t + d)

# RRuni's logLik is not recorded: it is not the binomial log-likelihood of the reports (about -3.8
# at n = 1500; a placeholder 1e6 for UQTunknown). For "FR" its pi is (P(0), P(1)).

# --- RRuni: one data set per yes/no design Deniable has -----------------------------------------
set.seed(20261127)
n <- 1500
uni <- list(
  # name, Deniable's design spec, RRreg model and p, (c, d), true prevalence
  list(name = "warner", spec = list(name = "warner", p = 0.8),
       model = "Warner", p = 0.8, c = 0.6, d = 0.2, pi = 0.3),
  list(name = "forced_response",
       spec = list(name = "forced_response", p_truth = 0.6, p_yes = 0.3, p_no = 0.1),
       model = "FR", p = c(0.1, 0.3), c = 0.6, d = 0.3, pi = 0.25),  # FR: p = (forced 0, forced 1)
  list(name = "unrelated_question",
       spec = list(name = "unrelated_question", p = 0.7, innocuous_prevalence = 0.4),
       model = "UQTknown", p = c(0.7, 0.4), c = 0.7, d = 0.3 * 0.4, pi = 0.2),
  list(name = "two_probability",
       spec = list(name = "two_probability", p_yes_if_trait = 0.75, p_yes_if_not = 0.25),
       model = "Kuk", p = c(0.75, 0.25), c = 0.5, d = 0.25, pi = 0.35),
  list(name = "crosswise",  # 1 = "same"; c = 2p - 1 < 0
       spec = list(name = "crosswise", innocuous_prevalence = 0.25,
                   innocuous_text = "Was your mother born in January, February or March?"),
       model = "Crosswise", p = 0.25, c = -0.5, d = 0.75, pi = 0.15)
)
for (u in uni) {
  t <- rbinom(n, 1, u$pi)
  r <- report_linear(t, u$c, u$d)
  fit <- RRuni(response = r, model = u$model, p = u$p)
  write_fixture(paste0("rruni_", u$name), list(
    method = "RRreg::RRuni", model = u$model, p = u$p, design = u$spec, true_prevalence = u$pi,
    reports = r,
    peer = list(pi = unname(fit$pi), pi_se = unname(fit$piSE), n = fit$n)
  ))
}

# Cheater detection, symmetric (CDMsym): group i forced yes y_i, forced no z_i; honest
# respondents with the trait (pi) say yes unless forced no, cheaters (gamma) always say no.
y <- c(0.2, 0.4); z <- c(0.3, 0.1); pi_true <- 0.3; gamma_true <- 0.1
group <- sample(1:2, n, replace = TRUE)
kind <- sample(c("trait", "cheat", "honest_no"), n, replace = TRUE,
               prob = c(pi_true, gamma_true, 1 - pi_true - gamma_true))
coin <- runif(n)
r <- ifelse(kind == "cheat", 0L,
            ifelse(coin < y[group], 1L, ifelse(coin < y[group] + z[group], 0L,
                                               as.integer(kind == "trait"))))
# RRuni prints "Error in PPP %*% pi: non-conformable arguments" here: its log-likelihood step for
# CDMsym fails inside a try() (logLik comes back NULL); pi, gamma and their SEs are unaffected.
fit <- RRuni(response = r, model = "CDMsym", p = c(y[1], z[1], y[2], z[2]), group = group)
write_fixture("rruni_cheater_detection", list(
  method = "RRreg::RRuni", model = "CDMsym", p = c(y[1], z[1], y[2], z[2]),
  design = list(name = "cheater_detection",
                groups = list(list(p_yes = y[1], p_no = z[1]), list(p_yes = y[2], p_no = z[2]))),
  true_prevalence = pi_true, true_cheaters = gamma_true, reports = r, group = group,
  peer = list(pi = unname(fit$pi), pi_se = unname(fit$piSE), gamma = unname(fit$gamma),
              gamma_se = unname(fit$gammaSE), n = fit$n)
))

# Unrelated question with an unknown innocuous prevalence (two groups).
p_uq <- c(0.7, 0.3); u_true <- 0.4; pi_true <- 0.2
group <- sample(1:2, n, replace = TRUE)
t <- rbinom(n, 1, pi_true); innocuous <- rbinom(n, 1, u_true)
r <- ifelse(runif(n) < p_uq[group], t, innocuous)
fit <- RRuni(response = r, model = "UQTunknown", p = p_uq, group = group)
write_fixture("rruni_unrelated_question_unknown", list(
  method = "RRreg::RRuni", model = "UQTunknown", p = p_uq,
  design = list(name = "unrelated_question_unknown", groups = list(list(p = 0.7), list(p = 0.3)),
                innocuous_text = "Were you born in the first half of the year?",
                innocuous_prevalence_min = 0.2, innocuous_prevalence_max = 0.6),
  true_prevalence = pi_true, true_innocuous = u_true, reports = r, group = group,
  peer = list(pi = unname(fit$pi), pi_se = unname(fit$piSE), n = fit$n,
              innocuous = unname(fit$piUQ), innocuous_se = unname(fit$piUQSE))
))

# --- RRlog (and rr::rrreg): a randomized outcome on a 3-level factor and a number -----------------
n <- 2000
logit_designs <- list(
  list(name = "forced_response", spec = uni[[2]]$spec, model = "FR", p = c(0.1, 0.3),
       c = 0.6, d = 0.3, rr = list(design = "forced-known", p = 0.6, p0 = 0.1, p1 = 0.3)),
  list(name = "warner", spec = uni[[1]]$spec, model = "Warner", p = 0.8, c = 0.6, d = 0.2,
       rr = list(design = "mirrored", p = 0.8)),
  list(name = "unrelated_question", spec = uni[[3]]$spec, model = "UQTknown", p = c(0.7, 0.4),
       c = 0.7, d = 0.12, rr = list(design = "unrelated-known", p = 0.7, q = 0.4))
)
beta_true <- c(-1, 0.8, -0.5, 0.6)  # (Intercept), region=north, region=south, hours
for (u in logit_designs) {
  region <- factor(sample(c("east", "north", "south"), n, replace = TRUE))
  hours <- round(rnorm(n), 3)
  t <- rbinom(n, 1, plogis(beta_true[1] + beta_true[2] * (region == "north") +
                             beta_true[3] * (region == "south") + beta_true[4] * hours))
  r <- report_linear(t, u$c, u$d)
  data <- data.frame(r = r, region = region, hours = hours)
  fit <- RRlog(r ~ region + hours, data, u$model, u$p, LR.test = FALSE, fit.n = 5)
  result <- list(
    method = "RRreg::RRlog", model = u$model, p = u$p, design = u$spec, true_beta = beta_true,
    terms = c("(Intercept)", "region=north", "region=south", "hours"),
    reports = r, region_levels = levels(region), region = as.integer(region) - 1L, hours = hours,
    peer = list(coef = unname(coef(fit)), se = se_of(vcov(fit)),
                log_lik = as.numeric(logLik(fit)), convergence = fit$convergence)
  )
  if (has_rr) {  # rr::rrreg: EM; optim = TRUE polishes with optim and gives the observed information
    args <- c(list(formula = r ~ region + hours, data = data), u$rr)
    # rr draws random numbers (its starting values): restore the stream afterwards, so that the
    # data sets simulated after this one are the same whether or not rr is installed.
    saved <- .Random.seed
    em <- do.call(rr::rrreg, args)
    ml <- do.call(rr::rrreg, c(args, list(optim = TRUE)))
    assign(".Random.seed", saved, envir = .GlobalEnv)
    result$rr <- list(
      coef = unname(coef(em)), se = se_of(vcov(em)),
      coef_optim = unname(coef(ml)), se_optim = se_of(vcov(ml)), call = u$rr
    )
  }
  write_fixture(paste0("rrlog_", u$name), result)
}

# --- RRlin: a number outcome on two randomized yes/no predictors and a direct number -------------
n <- 2000
w <- rbinom(n, 1, 0.3); f <- rbinom(n, 1, 0.4)  # independent traits (RRlin's pi is 2 x 2)
x <- round(rnorm(n), 3)
outcome <- round(1 + 2 * w - 1 * f + 0.5 * x + rnorm(n, sd = 1.5), 4)
rw <- report_linear(w, 0.6, 0.2)  # Warner p = 0.8
rf <- report_linear(f, 0.6, 0.3)  # forced response (0.6, 0.3, 0.1)
data <- data.frame(y = outcome, rw = rw, rf = rf, x = x)
fit <- RRlin(y ~ rw + rf + x, data, models = c("Warner", "FR"),
             p.list = list(0.8, c(0.1, 0.3)), fit.n = 5)
# RRlin maximises RRreg's own log-likelihood with optim (L-BFGS-B, default factr = 1e7, i.e. a
# relative reduction of about 2e-9 in -l): its optimum is loose at about 1e-4 in the estimates.
# Polishing the same RRreg likelihood from RRlin's solution is not done (RRlin.ll is internal);
# the test compares at RRlin's own tolerance and checks that our l is not below RRlin's.
se <- se_of(fit$vcov)
names(se) <- rownames(fit$vcov)
write_fixture("rrlin_two_predictors", list(
  method = "RRreg::RRlin", models = c("Warner", "FR"), p_list = list(0.8, c(0.1, 0.3)),
  designs = list(uni[[1]]$spec, uni[[2]]$spec),
  true = list(intercept = 1, rw = 2, rf = -1, x = 0.5, sigma = 1.5),
  y = outcome, rw = rw, rf = rf, x = x,
  peer = list(terms = names(fit$beta), beta = unname(fit$beta), sigma = unname(fit$sigma),
              pi = unname(fit$pi), pi_names = names(fit$pi),
              vcov_names = rownames(fit$vcov), se = unname(se),
              log_lik = unname(fit$logLik), convergence = fit$convergence,
              message = fit$message)
))
# --- RRlog for the two designs added last (own seed, so the fixtures above stay as they were) ----
# Crosswise has c = 2p - 1 < 0 (p = 0.25): the fit must handle a decreasing report rate.
set.seed(26)
n <- 1200
more <- list(
  list(name = "crosswise", spec = uni[[5]]$spec, model = "Crosswise", p = 0.25, c = -0.5, d = 0.75),
  list(name = "two_probability", spec = uni[[4]]$spec, model = "Kuk", p = c(0.75, 0.25),
       c = 0.5, d = 0.25)
)
for (u in more) {
  region <- factor(sample(c("east", "north", "south"), n, replace = TRUE))
  hours <- round(rnorm(n), 3)
  t <- rbinom(n, 1, plogis(beta_true[1] + beta_true[2] * (region == "north") +
                             beta_true[3] * (region == "south") + beta_true[4] * hours))
  r <- report_linear(t, u$c, u$d)
  data <- data.frame(r = r, region = region, hours = hours)
  fit <- RRlog(r ~ region + hours, data, u$model, u$p, LR.test = FALSE, fit.n = 5)
  write_fixture(paste0("rrlog_", u$name), list(
    method = "RRreg::RRlog", model = u$model, p = u$p, design = u$spec, true_beta = beta_true,
    terms = c("(Intercept)", "region=north", "region=south", "hours"),
    reports = r, region_levels = levels(region), region = as.integer(region) - 1L, hours = hours,
    peer = list(coef = unname(coef(fit)), se = se_of(vcov(fit)),
                log_lik = as.numeric(logLik(fit)), convergence = fit$convergence)
  ))
}
cat("wrote", length(list.files(out_dir, pattern = "json$")), "fixtures; rr installed:", has_rr, "\n")
