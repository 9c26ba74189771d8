/* The plant and the controller of the DC/DC converter system that LOCO's
 * power_controller channel drives (LOCO Appendix B, Fig. 7), host-only, so
 * that the unit tests can run the closed loop without a device and the
 * measured experiment (control.c) runs exactly the same equations.
 *
 * The paper gives no model; README.md of this folder states the one chosen
 * and why. In short: every converter is the averaged model of a buck
 * converter (inductor current i, capacitor voltage v, resistive load),
 *     L di/dt = d Vin - v,    C dv/dt = i - v / R,
 * and the controller is a discrete PI in velocity form on the converters'
 * mean error e = Vref / N - sum(V_i) / N, applied to every duty cycle:
 *     d_i <- clamp(d_i + Kp (e_k - e_{k-1}) + Ki T e_k, 0, 1).
 * The velocity form makes each new d_i a function of the previous d_i and
 * the latest voltages, as the paper describes, and the clamp is the
 * anti-windup (an integrator in velocity form stops at the limit). */
#ifndef NM_CONTROL_MODEL_H
#define NM_CONTROL_MODEL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ctl_params {
	double vin;       /* V, each converter's input */
	double l, c, r;   /* H, F, ohm */
	double vref;      /* V, per converter: the system's reference is N vref */
	double kp;        /* per volt of mean error */
	double ki;        /* per volt-second of mean error */
	double substep;   /* s, integration step inside a converter period */
} ctl_params;

/* The values README.md documents, tuned so that with no link delay the loop
 * is stable for controller periods up to 40 us and oscillating from 48 us (46 us still settles, in a quarter of a second). */
extern const ctl_params ctl_default_params;

typedef struct ctl_conv {
	double i, v;
} ctl_conv;

/* Integrates one converter over dt seconds with the duty cycle held at d
 * (semi-implicit Euler in substeps: stable and energy-preserving for the LC
 * at steps far below its resonance period). */
void ctl_conv_advance(const ctl_params *p, ctl_conv *c, double d, double dt);

typedef struct ctl_pi {
	double e_prev;
	bool started;
} ctl_pi;

/* One controller step: the increment every duty cycle gets, from the sum of
 * the n voltages it saw; T is the controller period (s). */
double ctl_pi_delta(const ctl_params *p, ctl_pi *pi, double vsum, int n, double t_period);
static inline double ctl_clamp_duty(double d) { return d < 0 ? 0 : d > 1 ? 1 : d; }

/* What a run's output trace says, against the system reference vref_sum:
 *   settling   the time after which the output stays within +-2% of the
 *              reference (s, from the start); -1 when it leaves the band in
 *              the last fifth of the run (not converged)
 *   overshoot  highest output above the reference, % of the reference
 *   sse        steady-state error: mean of (output - reference) over the last
 *              fifth, % of the reference
 *   ripple     peak-to-peak over the last fifth, % of the reference */
typedef struct ctl_verdict {
	double settling, overshoot, sse, ripple;
	bool converged;
} ctl_verdict;

#define CTL_BAND 0.02
void ctl_judge(const double *t, const double *v, size_t n, double duration, double vref_sum, ctl_verdict *out);

/* The closed loop on one host with no link delay: n converters stepped every
 * conv_period, the controller every t_period (both s), starting from rest
 * with every duty cycle 0. The controller at time t sees every converter's
 * voltage as of its last step at or before t, and a duty cycle it sets at t
 * is used from the converters' next step on. Writes the controller's
 * samples (time, sum) into t/v (capacity cap; returns how many). */
size_t ctl_sim(const ctl_params *p, int n, double conv_period, double t_period, double duration,
	       double *t, double *v, size_t cap);
#endif
