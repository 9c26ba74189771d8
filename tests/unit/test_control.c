/* The DC/DC converter system of LOCO's Fig. 7 (workloads/control/
 * control_model.h) on one host with no link delay: the model's documented
 * boundary (stable for controller periods of 10..40 us, oscillating above
 * about 48 us), the buck converter's DC gain, and what ctl_judge reads from
 * a trace. A broken model or controller moves the boundary, so these fail. */
#include "control_model.h"
#include "tap.h"
#include <math.h>
#include <stdlib.h>

#define CAP 800000
#define NCONV 20
#define DUR 0.6

static double *tb, *vb;

static ctl_verdict run(const ctl_params *p, double period_us)
{
	ctl_verdict v;
	size_t n = ctl_sim(p, NCONV, 10e-6, period_us * 1e-6, DUR, tb, vb, CAP);
	ctl_judge(tb, vb, n, DUR, NCONV * p->vref, &v);
	return v;
}

static void test_plant(void)
{
	const ctl_params *p = &ctl_default_params;
	ctl_conv c = {0};
	double d = p->vref / p->vin;
	for (int k = 0; k < 20000; k++)
		ctl_conv_advance(p, &c, d, 10e-6);
	/* An averaged buck converter's output settles at d Vin whatever its
	 * load, with the inductor carrying the load current. */
	CHECK(fabs(c.v - p->vref) < 1e-3, "open loop at d = Vref/Vin settles at Vref: %.5f V", c.v);
	CHECK(fabs(c.i - p->vref / p->r) < 1e-3, "inductor current is the load's: %.5f A", c.i);
	ctl_conv z = {0};
	ctl_conv_advance(p, &z, 0, 1e-3);
	CHECK(z.v == 0 && z.i == 0, "no duty cycle, no output");
}

static void test_boundary(void)
{
	const ctl_params *p = &ctl_default_params;
	for (int t = 10; t <= 40; t += 10) {
		ctl_verdict v = run(p, t);
		CHECK(v.converged && v.settling < 0.05 && fabs(v.sse) < 0.1 && v.ripple < 0.5,
		      "T = %d us: stable (settles in %.1f ms, overshoot %.1f%%, error %.3f%%, ripple %.3f%%)", t,
		      v.settling * 1e3, v.overshoot, v.sse, v.ripple);
	}
	for (int t = 50; t <= 80; t += 10) {
		ctl_verdict v = run(p, t);
		CHECK(!v.converged && v.ripple > CTL_BAND * 100, "T = %d us: oscillates (ripple %.0f%% of Vref, overshoot %.0f%%)", t,
		      v.ripple, v.overshoot);
	}
	/* Longer periods lose more phase: the start-up overshoot grows with T
	 * over the stable range, as the paper's transients do. */
	ctl_verdict a = run(p, 10), b = run(p, 40);
	CHECK(b.overshoot > a.overshoot && b.settling > a.settling,
	      "T = 40 us overshoots and settles later than T = 10 us (%.1f%% vs %.1f%%)", b.overshoot, a.overshoot);
}

static void test_converters_count(void)
{
	/* The controller works on the mean error, so the boundary does not move
	 * with the number of converters. */
	const ctl_params *p = &ctl_default_params;
	ctl_verdict v;
	size_t n = ctl_sim(p, 1, 10e-6, 40e-6, DUR, tb, vb, CAP);
	ctl_judge(tb, vb, n, DUR, p->vref, &v);
	CHECK(v.converged, "one converter, T = 40 us: stable");
	n = ctl_sim(p, 3, 10e-6, 60e-6, DUR, tb, vb, CAP);
	ctl_judge(tb, vb, n, DUR, 3 * p->vref, &v);
	CHECK(!v.converged, "three converters, T = 60 us: oscillates");
}

static void test_judge(void)
{
	double t[100], v[100];
	ctl_verdict j;
	for (int k = 0; k < 100; k++)
		t[k] = k * 0.01, v[k] = k < 10 ? 12.0 * k / 10 + (k == 9 ? 2 : 0) : 10;
	ctl_judge(t, v, 100, 1.0, 10, &j);
	CHECK(j.converged && fabs(j.settling - 0.09) < 1e-9, "settling: the last sample outside 2%%: %.3f s", j.settling);
	CHECK(fabs(j.overshoot - 12.8 / 10 * 100 + 100) < 1e-6, "overshoot: %.1f%%", j.overshoot);
	CHECK(j.sse == 0 && j.ripple == 0, "no steady-state error, no ripple");
	v[95] = 11;
	ctl_judge(t, v, 100, 1.0, 10, &j);
	CHECK(!j.converged && j.settling == -1 && j.ripple > 9.9, "out of band in the last fifth: not converged");
}

int main(void)
{
	tb = malloc(CAP * sizeof *tb);
	vb = malloc(CAP * sizeof *vb);
	test_plant();
	test_boundary();
	test_converters_count();
	test_judge();
	free(tb);
	free(vb);
	return tap_done();
}
