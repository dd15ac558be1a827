/* s_bessel.c: the modified Bessel functions I0, I1 and their
 * exponentially scaled forms (i0, special_i0e, special_i1,
 * special_i1e), which no torch exporter maps and ONNX has no op for.
 * torch evaluates Cephes' Chebyshev series (one on [0, 8] in x/2 - 2,
 * one above 8 in 32/x - 2); the same series, with the same
 * coefficients and the same order of operations, is written out here as
 * Clenshaw's recurrence in ONNX arithmetic, so results agree to the
 * rounding of the dtype. The coefficients are Cephes' (i0.c, i1.c). */
#include "s_math_util.h"

static const double I0_A[] = {
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
    1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
    9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
    1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
    -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
    1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
    1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1};
static const double I0_B[] = {
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
    3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
    2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
    8.04490411014108831608E-1};
static const double I1_A[] = {
    2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
    -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
    3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
    -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
    -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
    4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
    -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
    2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
    -1.76416518357834055153E-1, 2.52587186443633654823E-1};
static const double I1_B[] = {
    7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17,
    -3.20952592199342395980E-17, 2.96262899764595013876E-16, 3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
    4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11,
    3.25260358301548823856E-11, -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
    -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
    7.78576235018280120474E-1};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Each order's two series: on [0, 8] and above 8. */
static const struct series {
  const double *low, *high;
  int nlow, nhigh;
} SERIES[2] = {{I0_A, I0_B, COUNT(I0_A), COUNT(I0_B)},
               {I1_A, I1_B, COUNT(I1_A), COUNT(I1_B)}};

static oxp_value *k(oxp_sctx *c, double v, int dt) {
  return oxp_sym_const_scalar(c, v, dt);
}

/* Clenshaw: b0 = a[0]; b0' = y b0 - b1 + a[i]; the sum is (b0 - b2) / 2. */
static oxp_value *chebyshev(oxp_sctx *c, oxp_value *y, const double *a, int len,
                            int dt) {
  oxp_value *b0 = k(c, a[0], dt), *b1 = k(c, 0, dt), *b2 = b1;
  for (int i = 1; i < len; i++) {
    b2 = b1;
    b1 = b0;
    b0 = oxp_sym_op2(c, "Add", oxp_sym_op2(c, "Sub", oxp_sym_op2(c, "Mul", y, b1), b2),
                     k(c, a[i], dt));
  }
  return oxp_sym_op2(c, "Mul", k(c, 0.5, dt), oxp_sym_op2(c, "Sub", b0, b2));
}

/* order 0 or 1, scaled by exp(-|x|) or not. */
static oxp_status bessel(oxp_sctx *c, oxp_node *n, int order, bool scaled) {
  int dt = oxp_m_float_dtype(c, n, -1);
  oxp_value *x0 = dt ? oxp_sym_in_as(c, n, 0, dt) : NULL;
  if (!x0) return oxp_sym_status(c);
  oxp_value *x = oxp_sym_op1(c, "Abs", x0);
  oxp_value *ya = oxp_sym_op2(c, "Sub", oxp_sym_op2(c, "Div", x, k(c, 2, dt)), k(c, 2, dt));
  oxp_value *yb = oxp_sym_op2(c, "Sub", oxp_sym_op2(c, "Div", k(c, 32, dt), x), k(c, 2, dt));
  const struct series *s = &SERIES[order];
  oxp_value *ca = chebyshev(c, ya, s->low, s->nlow, dt);
  oxp_value *cb = chebyshev(c, yb, s->high, s->nhigh, dt);
  oxp_value *e = scaled ? NULL : oxp_sym_op1(c, "Exp", x);
  /* torch: exp(x) [* x] * cheb on [0, 8]; exp(x) * cheb / sqrt(x) above */
  oxp_value *a = e ? (order ? oxp_sym_op2(c, "Mul", oxp_sym_op2(c, "Mul", e, x), ca)
                            : oxp_sym_op2(c, "Mul", e, ca))
                   : (order ? oxp_sym_op2(c, "Mul", ca, x) : ca);
  oxp_value *b = oxp_sym_op2(c, "Div", e ? oxp_sym_op2(c, "Mul", e, cb) : cb,
                             oxp_sym_op1(c, "Sqrt", x));
  oxp_value *low = oxp_sym_op1(c, "Not", oxp_m_compare(c, "Greater", x, k(c, 8, dt), dt));
  oxp_value *r = oxp_sym_op3(c, "Where", low, a, b);
  if (order)
    r = oxp_sym_op3(c, "Where", oxp_m_compare(c, "Less", x0, k(c, 0, dt), dt),
                    oxp_sym_op1(c, "Neg", r), r);
  return oxp_m_set_out(c, n, 0, r);
}

oxp_status oxp_s_i0(oxp_sctx *c, oxp_node *n) { return bessel(c, n, 0, false); }
oxp_status oxp_s_i0e(oxp_sctx *c, oxp_node *n) { return bessel(c, n, 0, true); }
oxp_status oxp_s_i1(oxp_sctx *c, oxp_node *n) { return bessel(c, n, 1, false); }
oxp_status oxp_s_i1e(oxp_sctx *c, oxp_node *n) { return bessel(c, n, 1, true); }
