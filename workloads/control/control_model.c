/* The converter and controller equations (control_model.h). */
#include "control_model.h"
#include <math.h>
#include <stdlib.h>

const ctl_params ctl_default_params = {
	.vin = 12, .l = 100e-6, .c = 100e-6, .r = 2, .vref = 5, .kp = 0.07, .ki = 340, .substep = 1e-6,
};

void ctl_conv_advance(const ctl_params *p, ctl_conv *c, double d, double dt)
{
	int n = (int)ceil(dt / p->substep - 1e-9);
	if (n < 1)
		return;
	double h = dt / n;
	for (int k = 0; k < n; k++) {
		c->i += h / p->l * (d * p->vin - c->v);
		c->v += h / p->c * (c->i - c->v / p->r);
	}
}

double ctl_pi_delta(const ctl_params *p, ctl_pi *pi, double vsum, int n, double t_period)
{
	double e = p->vref - vsum / n;
	/* The first step has no previous error: a proportional kick from rest
	 * would be the derivative of a step, so the first step is integral
	 * only. */
	double de = pi->started ? e - pi->e_prev : 0;
	pi->e_prev = e;
	pi->started = true;
	return p->kp * de + p->ki * t_period * e;
}

void ctl_judge(const double *t, const double *v, size_t n, double duration, double vref_sum, ctl_verdict *out)
{
	*out = (ctl_verdict){.settling = -1};
	if (n == 0 || vref_sum <= 0)
		return;
	double tail = duration * 0.8, last_out = -1, peak = v[0], lo = INFINITY, hi = -INFINITY, sum = 0;
	size_t tailn = 0;
	for (size_t k = 0; k < n; k++) {
		if (fabs(v[k] - vref_sum) > CTL_BAND * vref_sum)
			last_out = t[k];
		if (v[k] > peak)
			peak = v[k];
		if (t[k] >= tail) {
			lo = fmin(lo, v[k]);
			hi = fmax(hi, v[k]);
			sum += v[k] - vref_sum;
			tailn++;
		}
	}
	out->overshoot = peak > vref_sum ? (peak - vref_sum) / vref_sum * 100 : 0;
	out->sse = tailn ? sum / (double)tailn / vref_sum * 100 : NAN;
	out->ripple = tailn ? (hi - lo) / vref_sum * 100 : NAN;
	out->converged = tailn > 0 && last_out < tail;
	out->settling = out->converged ? (last_out < 0 ? 0 : last_out) : -1;
}

size_t ctl_sim(const ctl_params *p, int n, double conv_period, double t_period, double duration,
	       double *t, double *v, size_t cap)
{
	ctl_conv *c = calloc((size_t)n, sizeof *c);
	double *d = calloc((size_t)n, sizeof *d), *seen = calloc((size_t)n, sizeof *seen), *held = calloc((size_t)n, sizeof *held);
	ctl_pi pi = {0};
	size_t got = 0;
	/* Integer event counts rather than accumulated times, so that the
	 * events of both loops that fall on one instant meet exactly. */
	uint64_t kc = 0, kt = 0;
	for (;;) {
		double tc = (double)kc * conv_period, tt = (double)kt * t_period;
		double now = fmin(tc, tt);
		if (now >= duration)
			break;
		if (tt <= tc) {
			/* The controller first at a shared instant: no delay, its
			 * duty cycle is what the converters step with next. */
			double sum = 0;
			for (int i = 0; i < n; i++)
				sum += seen[i];
			double delta = ctl_pi_delta(p, &pi, sum, n, t_period);
			for (int i = 0; i < n; i++)
				d[i] = ctl_clamp_duty(d[i] + delta);
			if (got < cap)
				t[got] = tt, v[got] = sum, got++;
			kt++;
		} else {
			for (int i = 0; i < n; i++) {
				if (kc > 0)
					ctl_conv_advance(p, &c[i], held[i], conv_period);
				held[i] = d[i];
				seen[i] = c[i].v;
			}
			kc++;
		}
	}
	free(c);
	free(d);
	free(seen);
	free(held);
	return got;
}
