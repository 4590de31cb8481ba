/* main.c: the iocontend command line (placeholder until the commands land). */
#include "../common/common.h"

#include <stdio.h>

int main(void)
{
    printf("iocontend %s\n", IOCONTEND_VERSION);
    return 0;
}
