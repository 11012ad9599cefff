/* cpi.c: computes pi by numerical integration of 4/(1+x^2) over [0,1].
 * Hand-written stand-in for the source copy of the classic-hatchet-cpi sample
 * (tests/data/handmade-src): the line numbers match the database (main at 19,
 * MPI_Init at 27, MPI_Finalize at 62); the text itself is illustrative. */
#include "mpi.h"
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

static double f(double a)
{
    return (4.0 / (1.0 + a * a));
}

/* Iterations of the integration loop, per rank. */
#define INTERVALS 100000000

int
main(int argc, char *argv[])
{
    int n, myid, numprocs, i;
    double PI25DT = 3.141592653589793238462643;
    double mypi, pi, h, sum, x;
    double startwtime = 0.0, endwtime;
    int namelen;
    char processor_name[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &numprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &myid);
    MPI_Get_processor_name(processor_name, &namelen);

    fprintf(stdout, "Process %d of %d is on %s\n", myid, numprocs, processor_name);
    fflush(stdout);

    n = INTERVALS;
    if (myid == 0)
        startwtime = MPI_Wtime();

    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);

    h = 1.0 / (double) n;
    sum = 0.0;
    for (i = myid + 1; i <= n; i += numprocs) {
        x = h * ((double) i - 0.5);
        sum += f(x);
    }
    mypi = h * sum;

    MPI_Reduce(&mypi, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

    if (myid == 0) {
        endwtime = MPI_Wtime();
        printf("pi is approximately %.16f, Error is %.16f\n",
               pi, fabs(pi - PI25DT));
        printf("wall clock time = %f\n", endwtime - startwtime);
        fflush(stdout);
    }

    /* every rank waits here for the others before shutting MPI down */
    /* (the profile shows all of the run's time under this call) */

    MPI_Finalize();
    return 0;
}
